// What an agent host brings to sign-in: an OAuth client (the MCP SDK's own provider
// interface, kept in memory), the HTTPS server that publishes its Client ID Metadata Document
// (a certificate made for 127.0.0.1 and trusted by the app through
// PLUGIN_GATEHOUSE_OAUTH_METADATA_CA_FILE), and the loopback page the browser is sent back to.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer as createHttps } from 'node:https'
import { createServer as createHttp, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'

export interface Certificate { readonly key: string; readonly cert: string; readonly caFile: string; remove(): void }

/** A self-signed certificate for 127.0.0.1 (openssl), written where settings can name it. */
export function loopbackCertificate(): Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-oauth-cert-'))
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), caFile: join(dir, 'cert.pem'), remove: () => rmSync(dir, { recursive: true, force: true }) }
}

const close = (s: Server) => new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => resolve()) })

/** Serves one JSON document over HTTPS at `/client.json`; `fetched` counts requests. */
export async function metadataServer(cert: Certificate, doc: (url: string) => Record<string, unknown>) {
  const state = { fetched: 0, url: '' }
  const server = createHttps({ key: cert.key, cert: cert.cert }, (req, res) => {
    state.fetched++
    if (req.url !== '/client.json') return res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc(state.url)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/client.json`
  return { get url() { return state.url }, get fetched() { return state.fetched }, close: () => close(server) }
}

/** The client's redirect URI: records each query it is sent and answers a plain page. */
export async function callbackServer() {
  const received: URLSearchParams[] = []
  const waiting: ((q: URLSearchParams) => void)[] = []
  const server = createHttp((req, res) => {
    const q = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams
    received.push(q)
    waiting.shift()?.(q)
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Back in the agent</title><p>You can close this window.</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`
  return { url, received, next: () => new Promise<URLSearchParams>((resolve) => waiting.push(resolve)), close: () => close(server) }
}

/** An MCP client's OAuth state in memory, as the SDK's provider interface asks for it. */
export class MemoryOAuthClient implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  /** The authorization URL the SDK would open in a browser. */
  authorizationUrl: URL | undefined
  readonly stateValue = randomBytes(16).toString('base64url')

  constructor(readonly redirectUrl: string, readonly clientMetadataUrl?: string, readonly name = 'Test Agent') {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }
  }
  state(): string { return this.stateValue }
  clientInformation() { return this.info }
  saveClientInformation(info: OAuthClientInformationMixed) { this.info = info }
  tokens() { return this.saved }
  saveTokens(tokens: OAuthTokens) { this.saved = tokens }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url }
  saveCodeVerifier(v: string) { this.verifier = v }
  codeVerifier() { return this.verifier }
}

/** The metadata document a host publishes for `client` at `url`. */
export const metadataDocument = (client: MemoryOAuthClient) => (url: string) => ({ client_id: url, ...client.clientMetadata })
