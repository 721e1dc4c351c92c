// The Settings screen's rows: every setting loadSettings read, the value this process uses
// (after defaults and clamping) and where it came from. Secrets never reach the page: tokens
// and the webhook secret show only that they are set, database and Redis URLs lose their
// password, the webhook URL its path (receivers often carry a key there, as the Status screen
// also hides), and configured credentials show id, label and scopes but never their token.
import type { Settings, SettingSource } from '../kernel/settings.js'

export interface SettingEntry {
  readonly name: string
  readonly value: string
  readonly source: SettingSource
  /** The value shown is not the whole value (a secret or part of one is hidden). */
  readonly masked: boolean
}

const PREFIX = 'PLUGIN_GATEHOUSE_'
const SECRETS = new Set(['API_TOKEN', 'ADMIN_TOKEN', 'WEBHOOK_SECRET'])
const URLS_WITH_PASSWORD = new Set(['DATABASE_URL', 'REDIS_URL'])
export const HIDDEN = 'set (hidden)'

/** PLUGIN_GATEHOUSE_WEBHOOK_TIMEOUT_SECONDS → webhookTimeoutSeconds: the Settings field of a name. */
const fieldOf = (name: string) => name.slice(PREFIX.length).toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

function withoutPassword(url: string): { value: string; masked: boolean } {
  try {
    const u = new URL(url)
    if (u.password === '') return { value: url, masked: false }
    u.password = '****'
    return { value: u.toString(), masked: true }
  } catch {
    return { value: url, masked: false }
  }
}

function show(key: string, value: unknown): { value: string; masked: boolean } {
  if (value === undefined || value === null) return { value: 'not set', masked: false }
  if (SECRETS.has(key)) return { value: HIDDEN, masked: true }
  if (URLS_WITH_PASSWORD.has(key)) return withoutPassword(String(value))
  if (key === 'WEBHOOK_URL') {
    const u = new URL(String(value))
    return u.pathname === '/' && u.search === '' ? { value: u.origin, masked: false } : { value: `${u.origin}/… (path hidden)`, masked: true }
  }
  if (key === 'API_CREDENTIALS') {
    const list = value as Settings['apiCredentials']
    if (list.length === 0) return { value: 'none', masked: false }
    return { value: list.map((c) => `${c.id} (${c.label}): ${c.scopes.join(', ')}; token hidden`).join(' | '), masked: true }
  }
  if (Array.isArray(value)) return { value: value.length === 0 ? 'none' : value.join(', '), masked: false }
  return { value: String(value), masked: false }
}

export function settingEntries(settings: Settings): SettingEntry[] {
  return Object.entries(settings.sources).map(([name, source]) => {
    const key = name.slice(PREFIX.length)
    return { name, source, ...show(key, (settings as unknown as Record<string, unknown>)[fieldOf(name)]) }
  })
}
