// Typed settings from the environment (and an optional .env). Every name starts with
// PLUGIN_GATEHOUSE_. Invalid values stop start-up with a message naming the setting; the
// two maxima the spec gives (webhook timeout 60, attempts 10) clamp with a warning instead.
import { existsSync } from 'node:fs'

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
  readonly rateLimitPerMinute: number
  readonly redisUrl?: string
  readonly changesRetentionDays: number
  /** Length of the sliding window incidents are judged over (docs/operations.md). */
  readonly incidentWindowSeconds: number
  /** How long a started workflow run holds its occurrence before it is abandoned (docs/jobs.md). */
  readonly jobsLeaseSeconds: number
  /** How long a workflow may stay due without a run before it counts as overdue. */
  readonly jobsOverdueGraceSeconds: number
  readonly providers: readonly string[]
  readonly logLevel: string
  /** Settings that were clamped or ignored; readiness and diagnostics show them. */
  readonly warnings: readonly string[]
}

export class SettingsError extends Error {
  constructor(readonly setting: string, problem: string) {
    super(`Invalid setting ${setting}: ${problem}`)
  }
}

const PREFIX = 'PLUGIN_GATEHOUSE_'
type Env = Readonly<Record<string, string | undefined>>

/** Loads `.env` from the working directory into process.env without overriding real variables. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path)
}

export function loadSettings(env: Env = process.env): Settings {
  const warnings: string[] = []
  const read = (name: string): string | undefined => {
    const v = env[PREFIX + name]
    return v === undefined || v.trim() === '' ? undefined : v.trim()
  }
  const bool = (name: string, def: boolean): boolean => {
    const v = read(name)
    if (v === undefined) return def
    const parsed = parseBoolean(v)
    if (parsed === undefined) throw new SettingsError(PREFIX + name, `expected true or false, got "${v}"`)
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
  if (webhookUrl) {
    checkUrl('WEBHOOK_URL', webhookUrl)
    if (!webhookSecret) throw new SettingsError(PREFIX + 'WEBHOOK_SECRET', 'required when PLUGIN_GATEHOUSE_WEBHOOK_URL is set')
    if (webhookUrl.includes('/gatehouse/dev/webhook-test-sink') && !(devMode && webhookTestSink)) {
      throw new SettingsError(PREFIX + 'WEBHOOK_URL', 'points at the dev test sink, which exists only in development mode with the test sink enabled')
    }
  } else if (webhookSecret) {
    throw new SettingsError(PREFIX + 'WEBHOOK_URL', 'required when PLUGIN_GATEHOUSE_WEBHOOK_SECRET is set')
  }

  const tokenScopes = read('TOKEN_SCOPES')
  return {
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
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 600, 0),
    redisUrl: read('REDIS_URL'),
    changesRetentionDays: int('CHANGES_RETENTION_DAYS', 90, 1),
    incidentWindowSeconds: int('INCIDENT_WINDOW_SECONDS', 300, 1, { value: 86_400, clamp: false }),
    jobsLeaseSeconds: int('JOBS_LEASE_SECONDS', 900, 1, { value: 86_400, clamp: false }),
    jobsOverdueGraceSeconds: int('JOBS_OVERDUE_GRACE_SECONDS', 900, 0, { value: 604_800, clamp: false }),
    providers: (read('PROVIDERS') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    logLevel: read('LOG_LEVEL') ?? 'info',
    warnings,
  }
}

/** The boolean spellings the API and settings accept: true,false,1,0,yes,no,on,off. */
export function parseBoolean(v: string): boolean | undefined {
  switch (v.toLowerCase()) {
    case 'true': case '1': case 'yes': case 'on': return true
    case 'false': case '0': case 'no': case 'off': return false
    default: return undefined
  }
}

function checkUrl(name: string, value: string): void {
  try {
    const u = new URL(value)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme')
  } catch {
    throw new SettingsError(PREFIX + name, `expected an http(s) URL, got "${value}"`)
  }
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
