// A control-panel client over inject: logs in through the real form (login CSRF cookie,
// scrypt check), keeps the session cookie, and posts forms with the page's CSRF token.
import { createAdmin } from '../../../src/auth/admin-accounts.js'
import { buildTestApp, type TestApp } from '../../helpers/test-app.js'
import type { WorkerOptions } from '../../../src/webhooks/delivery-worker.js'

export const ADMIN_USER = 'ops-admin'
export const ADMIN_PASSWORD = 'correct horse battery staple'

export interface PanelResponse {
  readonly statusCode: number
  readonly headers: Record<string, string | string[] | number | undefined>
  readonly body: string
}

export type Fields = Record<string, string | readonly string[]>

export function encodeForm(fields: Fields): string {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) p.append(k, x)
  return p.toString()
}

/** `name=value` of a Set-Cookie header, by cookie name. */
export function setCookie(res: PanelResponse, name: string): string | undefined {
  const all = [res.headers['set-cookie'] ?? []].flat().map(String)
  return all.find((c) => c.startsWith(`${name}=`))
}

export const cookiePair = (header: string) => header.split(';')[0]

/** The CSRF token a signed-in page carries. */
export function csrfOf(html: string): string {
  const m = /<meta name="csrf-token" content="([^"]+)">/.exec(html)
  if (!m) throw new Error('page has no CSRF token')
  return m[1]
}

export async function panelApp(env: Record<string, string> = {}, opts: { webhookWorker?: WorkerOptions; dotEnv?: string } = {}): Promise<TestApp> {
  const app = await buildTestApp({ dialect: 'sqlite', env, webhookWorker: opts.webhookWorker, dotEnv: opts.dotEnv })
  await createAdmin(app.services.database.db, ADMIN_USER, ADMIN_PASSWORD)
  return app
}

/** Extra request headers, and the client address the request comes from. */
export interface RequestExtra {
  readonly headers?: Record<string, string>
  readonly remoteAddress?: string
}

export function get(app: TestApp, url: string, cookie?: string, extra: RequestExtra = {}): Promise<PanelResponse> {
  return app.app.inject({ method: 'GET', url, remoteAddress: extra.remoteAddress, headers: { ...(cookie ? { cookie } : {}), ...extra.headers } })
}

export function post(app: TestApp, url: string, fields: Fields, cookie?: string, extra: RequestExtra = {}): Promise<PanelResponse> {
  return app.app.inject({
    method: 'POST', url, payload: encodeForm(fields), remoteAddress: extra.remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...extra.headers },
  })
}

/** Submits the login form as a browser would; returns the answer to the POST. */
export async function submitLogin(app: TestApp, username: string, password: string, extra: RequestExtra = {}): Promise<PanelResponse> {
  const form = await get(app, '/gatehouse/cp/login', undefined, extra)
  const cookie = setCookie(form, 'gatehouse_login_csrf')
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1]
  if (!cookie || !token) throw new Error('login form without CSRF cookie or field')
  return post(app, '/gatehouse/cp/login', { _csrf: token, username, password }, cookiePair(cookie), extra)
}

/** Logs in and returns the session cookie (`gatehouse_session=…`). */
export async function login(app: TestApp, username = ADMIN_USER, password = ADMIN_PASSWORD): Promise<string> {
  const res = await submitLogin(app, username, password)
  const cookie = setCookie(res, 'gatehouse_session')
  if (res.statusCode !== 303 || !cookie) throw new Error(`login failed: ${res.statusCode}`)
  return cookiePair(cookie)
}

/** A signed-in session: page loads and form posts carrying the current CSRF token. */
export async function signedIn(app: TestApp) {
  const cookie = await login(app)
  const csrf = csrfOf((await get(app, '/gatehouse/cp/status', cookie)).body)
  return {
    cookie,
    csrf,
    page: (url: string) => get(app, url, cookie),
    submit: (url: string, fields: Fields = {}) => post(app, url, { _csrf: csrf, ...fields }, cookie),
    /** Follows a 303 as a browser does: to its Location, with the cookies it set beside the session's. */
    follow: (res: PanelResponse) => {
      const set = [res.headers['set-cookie'] ?? []].flat().map(String).filter((c) => !/Max-Age=0/.test(c)).map(cookiePair)
      return get(app, String(res.headers.location), [cookie, ...set].join('; '))
    },
  }
}
