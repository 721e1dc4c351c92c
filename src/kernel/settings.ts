// Typed settings from the environment (and an optional .env). Every name starts with
// PLUGIN_GATEHOUSE_. Invalid values stop start-up with a message naming the setting; the
// two maxima the spec gives (webhook timeout 60, attempts 10) clamp with a warning instead.
import { existsSync, readFileSync } from 'node:fs'
import { outboundUrlProblem } from './outbound-url.js'
import { parseEnv } from 'node:util'
import { pointsAtSink } from './sink-path.js'
import { parseBoolean } from './booleans.js'

export interface ConfiguredCredential {
  readonly id: string
  readonly label: string
  readonly token: string
  readonly scopes: readonly string[]
  readonly expiresAt?: string
  readonly ipAllowlist?: readonly string[]
}

/** Settings that switch a surface on (boolean settings the routes and scopes depend on). */
export type FeatureFlag = 'enableAddressesApi' | 'enableUsersApi' | 'writesExperimental' | 'webhookTestSink'

export interface Settings {
  readonly databaseUrl: string
  readonly host: string
  readonly port: number
  readonly baseUrl: string
  readonly devMode: boolean
  readonly apiCredentials: readonly ConfiguredCredential[]
  readonly apiToken?: string
  readonly tokenScopes?: readonly string[]
  readonly adminToken?: string
  readonly enableAddressesApi: boolean
  readonly enableUsersApi: boolean
  readonly writesExperimental: boolean
  readonly webhookUrl?: string
  readonly webhookSecret?: string
  readonly webhookTimeoutSeconds: number
  readonly webhookMaxAttempts: number
  readonly webhookTestSink: boolean
  readonly webhookRetryBaseSeconds: number
  /** Allow a webhook URL on a link-local or cloud-metadata address (refused by default). */
  readonly webhookAllowPrivate: boolean
  readonly rateLimitPerMinute: number
  readonly redisUrl?: string
  /** Prefix of every Redis key, so deployments sharing a Redis keep their budgets apart. */
  readonly redisPrefix: string
  /** PostgreSQL: longest wait for a new connection (TCP and start-up). */
  readonly databaseConnectTimeoutMs: number
  /** PostgreSQL: longest a statement of a serving process may run (statement_timeout; the client waits a second more). */
  readonly databaseQueryTimeoutMs: number
  /** SQLite: longest wait for another process's write lock. */
  readonly sqliteBusyTimeoutMs: number
  /** HTTP: time a client has to send the request line and headers. */
  readonly httpHeadersTimeoutMs: number
  /** HTTP: time a client has to send the whole request, body included. */
  readonly httpRequestTimeoutMs: number
  /** HTTP: how long an idle keep-alive connection stays open after an answer. */
  readonly httpKeepAliveTimeoutMs: number
  /** HTTP: a connection with no traffic either way for this long is closed. */
  readonly httpIdleTimeoutMs: number
  readonly changesRetentionDays: number
  /** Length of the sliding window incidents are judged over (docs/operations.md). */
  readonly incidentWindowSeconds: number
  /** How long a started workflow run holds its occurrence before it is abandoned (docs/jobs.md). */
  readonly jobsLeaseSeconds: number
  /** How long a workflow may stay due without a run before it counts as overdue. */
  readonly jobsOverdueGraceSeconds: number
  readonly providers: readonly string[]
  /** The built-in redirects provider's file (CSV with a header row, or JSON lines). */
  readonly redirectsFile?: string
  readonly logLevel: string
  /** OAuth 2.1 sign-in for agents (docs/mcp.md): the authorization server and the protected resources. */
  readonly oauthEnabled: boolean
  /** The authorization server's issuer; its path is always OAUTH_PATH (default: BASE_URL + OAUTH_PATH). */
  readonly oauthIssuer: string
  /** Clients may identify themselves by a Client ID Metadata Document URL. */
  readonly oauthClientMetadataDocuments: boolean
  /** Clients may register themselves (RFC 7591). */
  readonly oauthDynamicRegistration: boolean
  /** The most any OAuth grant may receive; unset: any scope of the catalogue. */
  readonly oauthMaxScopes?: readonly string[]
  readonly oauthAccessTokenTtlSeconds: number
  readonly oauthRefreshTokenTtlDays: number
  /** Fetch client metadata documents from link-local or cloud-metadata addresses too. */
  readonly oauthMetadataAllowPrivate: boolean
  /** A PEM file of extra certificate authorities trusted when fetching client metadata documents. */
  readonly oauthMetadataCaFile?: string
  /** Settings that were clamped or ignored; readiness and diagnostics show them. */
  readonly warnings: readonly string[]
  /** Every setting read, by full name, in the order read: where its value came from (the panel's Settings screen). */
  readonly sources: Readonly<Record<string, SettingSource>>
}

/** Where a setting's value came from: a real environment variable, the `.env` file, or the default. */
export type SettingSource = 'command line' | 'environment' | '.env' | 'default'

export class SettingsError extends Error {
  constructor(readonly setting: string, problem: string) {
    super(`Invalid setting ${setting}: ${problem}`)
  }
}

const PREFIX = 'PLUGIN_GATEHOUSE_'
/** Where the OAuth authorization server is mounted (its issuer's path). */
export const OAUTH_PATH = '/gatehouse/oauth'
type Env = Readonly<Record<string, string | undefined>>

// Names the `.env` file supplied to process.env (loading twice must not make them look real).
const fromDotEnvFile = new Set<string>()
// Names a command's option set in process.env (`serve --port 9090`): the panel says so.
const fromCommandLine = new Set<string>()

/** Sets a setting from a command's option (`--port`), remembering where it came from. */
export function setFromCommandLine(name: string, value: string): void {
  process.env[PREFIX + name] = value
  fromCommandLine.add(PREFIX + name)
}

/**
 * Loads `.env` from the working directory into `target` (process.env) without overriding real
 * variables, as process.loadEnvFile does; answers the names it supplied, so settings can say
 * which values came from the file.
 */
export function loadDotEnv(path = '.env', target: Record<string, string | undefined> = process.env): ReadonlySet<string> {
  const supplied = target === process.env ? fromDotEnvFile : new Set<string>()
  if (!existsSync(path)) return supplied
  for (const [name, value] of Object.entries(parseEnv(readFileSync(path, 'utf8')))) {
    if (target[name] !== undefined || value === undefined) continue
    target[name] = value
    supplied.add(name)
  }
  return supplied
}

export function loadSettings(env: Env = process.env, opts: { fromDotEnv?: ReadonlySet<string> } = {}): Settings {
  const warnings: string[] = []
  const fromDotEnv = opts.fromDotEnv ?? (env === process.env ? fromDotEnvFile : new Set<string>())
  const sources: Record<string, SettingSource> = {}
  const read = (name: string): string | undefined => {
    const v = env[PREFIX + name]
    const value = v === undefined || v.trim() === '' ? undefined : v.trim()
    sources[PREFIX + name] = value === undefined ? 'default' : fromDotEnv.has(PREFIX + name) ? '.env' : env === process.env && fromCommandLine.has(PREFIX + name) ? 'command line' : 'environment'
    return value
  }
  const bool = (name: string, def: boolean): boolean => {
    const v = read(name)
    if (v === undefined) return def
    const parsed = parseBoolean(v)
    if (parsed === undefined) throw new SettingsError(PREFIX + name, `expected true or false (also yes/no, on/off, 1/0), got "${v}"`)
    return parsed
  }
  const int = (name: string, def: number, min: number, max?: { value: number; clamp: boolean }): number => {
    const v = read(name)
    if (v === undefined) return def
    if (!/^-?\d+$/.test(v)) throw new SettingsError(PREFIX + name, `expected a whole number, got "${v}"`)
    const n = Number(v)
    if (n < min) throw new SettingsError(PREFIX + name, `must be at least ${min}`)
    if (max && n > max.value) {
      if (!max.clamp) throw new SettingsError(PREFIX + name, `must be at most ${max.value}`)
      warnings.push(`${PREFIX + name}=${n} is above the maximum ${max.value}; using ${max.value}`)
      return max.value
    }
    return n
  }

  const host = read('HOST') ?? '127.0.0.1'
  // Checked here, or a bad one is blamed on BASE_URL, which is built from it.
  if (URL.parse(`http://${host.includes(':') ? `[${host}]` : host}/`)?.hostname === undefined || /[/?#@\s]/.test(host)) {
    throw new SettingsError(PREFIX + 'HOST', `expected a host name or an IP address, got "${host}"`)
  }
  const port = int('PORT', 8080, 0, { value: 65535, clamp: false })
  const databaseUrl = read('DATABASE_URL') ?? 'sqlite:./data/gatehouse.db'
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new SettingsError(PREFIX + 'DATABASE_URL', 'expected sqlite:PATH or postgres://…')
  }
  const baseUrl = (read('BASE_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '')
  checkUrl('BASE_URL', baseUrl)

  const devMode = bool('DEV_MODE', false)
  const webhookTestSink = bool('WEBHOOK_TEST_SINK', false)
  if (webhookTestSink && !devMode) {
    throw new SettingsError(PREFIX + 'WEBHOOK_TEST_SINK', 'the test sink requires PLUGIN_GATEHOUSE_DEV_MODE=true')
  }
  const webhookUrl = read('WEBHOOK_URL')
  const webhookSecret = read('WEBHOOK_SECRET')
  const webhookAllowPrivate = bool('WEBHOOK_ALLOW_PRIVATE', false)
  if (webhookUrl) {
    checkWebhookUrl(webhookUrl, webhookAllowPrivate)
    if (!webhookSecret) throw new SettingsError(PREFIX + 'WEBHOOK_SECRET', 'required when PLUGIN_GATEHOUSE_WEBHOOK_URL is set')
    // A Standard Webhooks secret: its key is the base64 after the prefix (src/webhooks/signer.ts).
    if (webhookSecret.startsWith('whsec_') && !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(webhookSecret.slice(6))) {
      throw new SettingsError(PREFIX + 'WEBHOOK_SECRET', 'a whsec_ secret must be followed by base64 (the Standard Webhooks key)')
    }
    if (webhookSecret === 'whsec_') throw new SettingsError(PREFIX + 'WEBHOOK_SECRET', 'a whsec_ secret needs its base64 key after the prefix')
    if (pointsAtSink(webhookUrl) && !(devMode && webhookTestSink)) {
      throw new SettingsError(PREFIX + 'WEBHOOK_URL', 'points at the dev test sink, which exists only in development mode with the test sink enabled')
    }
  } else if (webhookSecret) {
    throw new SettingsError(PREFIX + 'WEBHOOK_URL', 'required when PLUGIN_GATEHOUSE_WEBHOOK_SECRET is set')
  }

  const providers = (read('PROVIDERS') ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  const redirectsFile = read('REDIRECTS_FILE')
  if (providers.includes('redirects') && !redirectsFile) {
    throw new SettingsError(PREFIX + 'REDIRECTS_FILE', 'required when PLUGIN_GATEHOUSE_PROVIDERS names the redirects provider')
  }
  if (redirectsFile && !providers.includes('redirects')) {
    warnings.push(`${PREFIX}REDIRECTS_FILE is set but PLUGIN_GATEHOUSE_PROVIDERS does not name redirects; ignored`)
  }

  const tokenScopes = read('TOKEN_SCOPES')
  const oauthIssuer = (read('OAUTH_ISSUER') ?? baseUrl + OAUTH_PATH).replace(/\/+$/, '')
  checkUrl('OAUTH_ISSUER', oauthIssuer)
  if (new URL(oauthIssuer).pathname !== OAUTH_PATH || new URL(oauthIssuer).search !== '') {
    throw new SettingsError(PREFIX + 'OAUTH_ISSUER', `the issuer's path must be ${OAUTH_PATH}, where the authorization server is mounted (got "${oauthIssuer}")`)
  }
  const oauthMaxScopes = read('OAUTH_MAX_SCOPES')
  const oauthMetadataCaFile = read('OAUTH_METADATA_CA_FILE')
  if (oauthMetadataCaFile !== undefined && !existsSync(oauthMetadataCaFile)) {
    throw new SettingsError(PREFIX + 'OAUTH_METADATA_CA_FILE', `no such file: ${oauthMetadataCaFile}`)
  }
  const settings: Settings = {
    databaseUrl,
    host,
    port,
    baseUrl,
    devMode,
    apiCredentials: parseCredentials(read('API_CREDENTIALS')),
    apiToken: read('API_TOKEN'),
    tokenScopes: tokenScopes === undefined ? undefined : tokenScopes.split(/[\s,]+/).filter(Boolean),
    adminToken: read('ADMIN_TOKEN'),
    enableAddressesApi: bool('ENABLE_ADDRESSES_API', false),
    enableUsersApi: bool('ENABLE_USERS_API', false),
    writesExperimental: bool('WRITES_EXPERIMENTAL', false),
    webhookUrl,
    webhookSecret,
    webhookTimeoutSeconds: int('WEBHOOK_TIMEOUT_SECONDS', 5, 1, { value: 60, clamp: true }),
    webhookMaxAttempts: int('WEBHOOK_MAX_ATTEMPTS', 3, 1, { value: 10, clamp: true }),
    webhookTestSink,
    webhookRetryBaseSeconds: int('WEBHOOK_RETRY_BASE_SECONDS', 30, 0),
    webhookAllowPrivate,
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 600, 0),
    redisUrl: redisUrl(read('REDIS_URL')),
    redisPrefix: redisPrefix(read('REDIS_PREFIX') ?? 'gatehouse:'),
    databaseConnectTimeoutMs: int('DATABASE_CONNECT_TIMEOUT_MS', 5000, 1),
    databaseQueryTimeoutMs: int('DATABASE_QUERY_TIMEOUT_MS', 15000, 1),
    sqliteBusyTimeoutMs: int('SQLITE_BUSY_TIMEOUT_MS', 5000, 0),
    httpHeadersTimeoutMs: int('HTTP_HEADERS_TIMEOUT_MS', 10000, 1),
    httpRequestTimeoutMs: int('HTTP_REQUEST_TIMEOUT_MS', 30000, 1),
    httpKeepAliveTimeoutMs: int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5000, 1),
    httpIdleTimeoutMs: int('HTTP_IDLE_TIMEOUT_MS', 60000, 1),
    changesRetentionDays: int('CHANGES_RETENTION_DAYS', 90, 1),
    incidentWindowSeconds: int('INCIDENT_WINDOW_SECONDS', 300, 1, { value: 86_400, clamp: false }),
    jobsLeaseSeconds: int('JOBS_LEASE_SECONDS', 900, 1, { value: 86_400, clamp: false }),
    jobsOverdueGraceSeconds: int('JOBS_OVERDUE_GRACE_SECONDS', 900, 0, { value: 604_800, clamp: false }),
    providers,
    redirectsFile,
    logLevel: oneOf('LOG_LEVEL', read('LOG_LEVEL') ?? 'info', LOG_LEVELS),
    oauthEnabled: bool('OAUTH_ENABLED', true),
    oauthIssuer,
    oauthClientMetadataDocuments: bool('OAUTH_CLIENT_METADATA_DOCUMENTS', true),
    oauthDynamicRegistration: bool('OAUTH_DYNAMIC_REGISTRATION', true),
    oauthMaxScopes: oauthMaxScopes === undefined ? undefined : oauthMaxScopes.split(/[\s,]+/).filter(Boolean),
    oauthAccessTokenTtlSeconds: int('OAUTH_ACCESS_TOKEN_TTL_SECONDS', 600, 60, { value: 3600, clamp: false }),
    oauthRefreshTokenTtlDays: int('OAUTH_REFRESH_TOKEN_TTL_DAYS', 30, 1, { value: 365, clamp: false }),
    oauthMetadataAllowPrivate: bool('OAUTH_METADATA_ALLOW_PRIVATE', false),
    oauthMetadataCaFile,
    warnings,
    sources,
  }
  // Every setting is read above, so a name no read asked for is none (a misspelt
  // PLUGIN_GATEHOUSE_PROT left the default port in force unnoticed).
  for (const name of Object.keys(env)) {
    if (name.startsWith(PREFIX) && name !== PREFIX && !(name in sources)) {
      const near = closestName(name, Object.keys(sources))
      warnings.push(`${name} is not a setting; ignored${near ? ` (did you mean ${near}?)` : ''}`)
    }
  }
  return settings
}

/** The known name within three edits of `name`, if one is. */
function closestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined
  for (const k of known) {
    const d = editDistance(name, k)
    if (d <= 3 && (!best || d < best.distance)) best = { name: k, distance: d }
  }
  return best?.name
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = row
  }
  return previous[b.length] as number
}

/** pino's levels, and `silent`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new SettingsError(PREFIX + name, `must be one of: ${allowed.join(', ')}; got "${value}"`)
  return value as T
}

function redisUrl(value: string | undefined): string | undefined {
  if (value !== undefined && !/^rediss?:\/\/./.test(value)) throw new SettingsError(PREFIX + 'REDIS_URL', `expected redis://… or rediss://…, got "${value}"`)
  return value
}

function checkUrl(name: string, value: string): void {
  try {
    const u = new URL(value)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme')
  } catch {
    throw new SettingsError(PREFIX + name, `expected an http(s) URL, got "${value}"`)
  }
}

function redisPrefix(value: string): string {
  if (!/^[A-Za-z0-9:._-]{1,64}$/.test(value)) {
    throw new SettingsError(PREFIX + 'REDIS_PREFIX', `expected 1–64 of A-Z a-z 0-9 : . _ -, got "${value}"`)
  }
  return value
}

/** The webhook receiver: the outbound URL rules (kernel/outbound-url.ts). */
function checkWebhookUrl(value: string, allowPrivate: boolean): void {
  checkUrl('WEBHOOK_URL', value)
  const problem = outboundUrlProblem(value, allowPrivate)
  if (problem === undefined) return
  const hint = problem.includes('link-local') ? '; set PLUGIN_GATEHOUSE_WEBHOOK_ALLOW_PRIVATE=true if the receiver really is there' : ''
  throw new SettingsError(PREFIX + 'WEBHOOK_URL', problem + hint)
}

function parseCredentials(raw: string | undefined): ConfiguredCredential[] {
  if (raw === undefined) return []
  const name = PREFIX + 'API_CREDENTIALS'
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw new SettingsError(name, 'expected a JSON array')
  }
  if (!Array.isArray(parsed)) throw new SettingsError(name, 'expected a JSON array')
  const seen = new Set<string>()
  return parsed.map((c: unknown, i) => {
    const at = `entry ${i}`
    if (typeof c !== 'object' || c === null) throw new SettingsError(name, `${at} is not an object`)
    const o = c as Record<string, unknown>
    for (const k of ['id', 'token'] as const) {
      if (typeof o[k] !== 'string' || (o[k] as string).length === 0) throw new SettingsError(name, `${at} needs a string "${k}"`)
    }
    if (!Array.isArray(o.scopes) || !o.scopes.every((s) => typeof s === 'string')) {
      throw new SettingsError(name, `${at} needs "scopes" as an array of strings`)
    }
    if (o.expiresAt !== undefined && (typeof o.expiresAt !== 'string' || Number.isNaN(Date.parse(o.expiresAt)))) {
      throw new SettingsError(name, `${at} has an invalid "expiresAt"`)
    }
    if (o.ipAllowlist !== undefined && (!Array.isArray(o.ipAllowlist) || !o.ipAllowlist.every((s) => typeof s === 'string'))) {
      throw new SettingsError(name, `${at} needs "ipAllowlist" as an array of CIDR strings`)
    }
    const id = o.id as string
    if (seen.has(id)) throw new SettingsError(name, `duplicate credential id "${id}"`)
    seen.add(id)
    return {
      id,
      label: typeof o.label === 'string' ? o.label : id,
      token: o.token as string,
      scopes: o.scopes as string[],
      expiresAt: o.expiresAt as string | undefined,
      ipAllowlist: o.ipAllowlist as string[] | undefined,
    }
  })
}
