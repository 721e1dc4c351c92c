// The authorization code flow by hand (fetch, a cookie jar, no redirects followed), for the
// cases a well-behaved SDK never produces: a client registered dynamically, PKCE made here,
// the operator's login and consent posted as the panel's forms would be.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { ADMIN_PASSWORD, ADMIN_USER, tokenRequest, type Site } from './oauth-apps.js'

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** A browser without a window: keeps cookies, shows each answer, follows nothing by itself. */
export class Jar {
  private readonly cookies = new Map<string, string>()

  async request(url: string, init: { method?: string; form?: Record<string, string | readonly string[]> } = {}): Promise<Response> {
    const body = init.form ? new URLSearchParams(Object.entries(init.form).flatMap(([k, v]) => [v].flat().map((x): [string, string] => [k, x]))).toString() : undefined
    const res = await fetch(url, {
      method: init.method ?? (body ? 'POST' : 'GET'), redirect: 'manual',
      headers: { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body,
    })
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const i = pair.indexOf('=')
      const [name, value] = [pair.slice(0, i), pair.slice(i + 1)]
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return res
  }

  /** Follows redirects on `origin` until one leaves it (to the client) or a page is shown. */
  async follow(url: string, origin: string): Promise<{ url: string; res: Response }> {
    let at = url
    for (let i = 0; i < 10; i++) {
      const res = await this.request(at)
      const location = res.headers.get('location')
      if (!location) return { url: at, res }
      at = new URL(location, at).href
      if (new URL(at).origin !== origin) return { url: at, res }
    }
    throw new Error('too many redirects')
  }

  async login(base: string): Promise<void> {
    const form = await (await this.request(`${base}/gatehouse/cp/login`)).text()
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form)?.[1] ?? ''
    const res = await this.request(`${base}/gatehouse/cp/login`, { form: { _csrf: csrf, username: ADMIN_USER, password: ADMIN_PASSWORD, next: '/gatehouse/cp/status' } })
    if (res.status !== 303) throw new Error(`login failed: ${res.status}`)
  }
}

export const csrfOf = (html: string) => /<meta name="csrf-token" content="([^"]+)">/.exec(html)?.[1] ?? ''

export interface HandClient {
  readonly clientId: string
  readonly redirectUri: string
}

/** The registration request (RFC 7591) of a public client, with `extra` metadata. */
export function registration(base: string, redirectUri: string, name = 'Hand Agent', extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${base}/gatehouse/oauth/reg`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...extra }),
  })
}

/** Registers a public client (RFC 7591). */
export async function register(base: string, redirectUri: string, name = 'Hand Agent', extra: Record<string, unknown> = {}): Promise<HandClient> {
  const res = await registration(base, redirectUri, name, extra)
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`)
  return { clientId: ((await res.json()) as { client_id: string }).client_id, redirectUri }
}

export function authorizeUrl(base: string, client: HandClient, p: Record<string, string | undefined>): string {
  const u = new URL(`${base}/gatehouse/oauth/auth`)
  const all: Record<string, string | undefined> = { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, state: randomBytes(8).toString('hex'), ...p }
  for (const [k, v] of Object.entries(all)) if (v !== undefined) u.searchParams.set(k, v)
  return u.href
}

/** Authorize, log in, answer the consent page with `form`; answers where the browser ends up. */
export async function consent(site: Site, jar: Jar, client: HandClient, params: Record<string, string | undefined>, form: Record<string, string | readonly string[]>): Promise<URL> {
  const start = await jar.follow(authorizeUrl(site.base, client, params), site.base)
  if (new URL(start.url).pathname === '/gatehouse/cp/login') {
    await jar.login(site.base)
    return consent(site, jar, client, params, form)
  }
  assert.match(new URL(start.url).pathname, /^\/gatehouse\/cp\/oauth\/consent\//, `expected the consent page, got ${start.url}`)
  const page = await start.res.text()
  const answer = await jar.request(start.url, { form: { _csrf: csrfOf(page), ...form } })
  assert.equal(answer.status, 303, await answer.clone().text())
  return new URL((await jar.follow(new URL(String(answer.headers.get('location')), site.base).href, site.base)).url)
}

/** The code exchange at the token endpoint (a public client: its id, no secret). */
export function exchange(site: Site, client: HandClient, code: string, verifier: string, resource?: string): Promise<Response> {
  return tokenRequest(site.base, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.clientId, redirect_uri: client.redirectUri, ...(resource ? { resource } : {}) })
}

export interface Tokens {
  readonly access_token: string
  readonly refresh_token: string
  readonly scope: string
  readonly token_type: string
}

/** A whole sign-in: the client asks for `scopes`, the operator grants them all, the code becomes tokens. */
export async function signIn(site: Site, jar: Jar, client: HandClient, scopes: readonly string[], opts: { resource?: string } = {}): Promise<Tokens> {
  const p = pkce()
  const back = await consent(site, jar, client, { scope: scopes.join(' '), code_challenge: p.challenge, code_challenge_method: 'S256', resource: opts.resource }, { decision: 'grant', scopes })
  const code = back.searchParams.get('code')
  assert.ok(code, `no code: ${back.href}`)
  const res = await exchange(site, client, code, p.verifier, opts.resource)
  assert.equal(res.status, 200, await res.clone().text())
  return (await res.json()) as Tokens
}

/** The error code of a token-endpoint answer (RFC 6749 §5.2). */
export async function oauthError(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error
}
