// Credential lifecycle review: for every credential, what needs attention (expiry, never
// used, unused for long, rotation due, paused, revoked), a risk level and one recommended
// action. Only ids, labels, scopes and dates: never a token or its hint.
import type { CredentialRecord } from '../auth/credentials.js'

export type Risk = 'low' | 'medium' | 'high' | 'critical'

export const LIFECYCLE_LIMITS = Object.freeze({
  /** Unused this long: stale. */
  staleDays: 30,
  /** Unused this long: high risk (a forgotten credential that still works). */
  abandonedDays: 90,
  /** Never used and older than this: probably not needed. */
  neverUsedGraceDays: 7,
  /** Age since creation or last rotation after which rotation is due. */
  rotationDays: 90,
  rotationOverdueDays: 180,
  expiringSoonDays: 14,
})

export interface Finding {
  readonly code: 'revoked' | 'paused' | 'expired' | 'expiring_soon' | 'never_used' | 'stale' | 'rotation_due' | 'legacy_token' | 'privileged'
  readonly risk: Risk
  readonly action: string
}

export interface CredentialLifecycle {
  readonly credentialId: string
  readonly label: string
  readonly source: CredentialRecord['source']
  readonly status: CredentialRecord['status']
  readonly scopes: readonly string[]
  readonly createdAt: string | null
  readonly expiresAt: string | null
  readonly expired: boolean
  readonly expiresInDays: number | null
  readonly lastUsedAt: string | null
  readonly neverUsed: boolean
  readonly daysSinceLastUse: number | null
  readonly stale: boolean
  readonly rotatedAt: string | null
  /** Null when the age is unknown (configured credentials have no creation date). */
  readonly rotationDue: boolean | null
  readonly paused: boolean
  readonly revoked: boolean
  readonly risk: Risk
  readonly findings: readonly Finding['code'][]
  readonly recommendedAction: string
}

const DAY = 86_400_000
const order: Record<Risk, number> = { low: 0, medium: 1, high: 2, critical: 3 }
const days = (ms: number) => Math.floor(ms / DAY)
const PRIVILEGED = /(:read_sensitive$|^control:|^webhooks:dlq:replay$)/

export function reviewCredential(c: CredentialRecord, now = Date.now()): CredentialLifecycle {
  const L = LIFECYCLE_LIMITS
  const findings: Finding[] = []
  const expiresAt = c.expiresAt ? Date.parse(c.expiresAt) : null
  const expired = expiresAt !== null && expiresAt <= now
  const lastUsed = c.lastUsedAt ? Date.parse(c.lastUsedAt) : null
  const created = c.createdAt ? Date.parse(c.createdAt) : null
  const sinceUse = lastUsed === null ? null : days(now - lastUsed)
  const rotationBase = c.rotatedAt ? Date.parse(c.rotatedAt) : created
  const age = rotationBase === null ? null : days(now - rotationBase)
  const usable = c.status === 'active' && !expired

  if (c.status === 'revoked') findings.push({ code: 'revoked', risk: 'low', action: 'Delete it once its history is no longer needed.' })
  if (c.status === 'paused') findings.push({ code: 'paused', risk: 'low', action: 'Resume it if its client still needs access, otherwise revoke it.' })
  if (expired && c.status !== 'revoked') findings.push({ code: 'expired', risk: 'low', action: 'Create a replacement for its client if still needed, then delete it.' })
  if (usable) {
    if (expiresAt !== null && expiresAt - now <= L.expiringSoonDays * DAY) {
      findings.push({ code: 'expiring_soon', risk: 'medium', action: 'Rotate it or extend its expiry before the client loses access.' })
    }
    const neverUsed = lastUsed === null && c.firstUsedAt === null
    if (neverUsed && created !== null && now - created > L.neverUsedGraceDays * DAY) {
      findings.push({ code: 'never_used', risk: 'medium', action: 'Never used: revoke it unless a client is about to start.' })
    }
    if (sinceUse !== null && sinceUse >= L.staleDays) {
      findings.push({ code: 'stale', risk: sinceUse >= L.abandonedDays ? 'high' : 'medium', action: `Unused for ${sinceUse} days: revoke it, or pause it until its client returns.` })
    }
    if (age !== null && age >= L.rotationDays) {
      findings.push({ code: 'rotation_due', risk: age >= L.rotationOverdueDays ? 'high' : 'medium', action: `Token is ${age} days old: rotate it and hand the new token to its client.` })
    }
    if (c.source === 'legacy') {
      findings.push({ code: 'legacy_token', risk: 'medium', action: 'Give each client a managed credential with the scopes it needs, then unset PLUGIN_GATEHOUSE_API_TOKEN.' })
    }
    const dormant = findings.some((f) => f.code === 'stale' || f.code === 'never_used')
    if (dormant && c.scopes.some((s) => PRIVILEGED.test(s))) {
      findings.push({ code: 'privileged', risk: 'critical', action: 'A dormant credential holds sensitive or control scopes: revoke it now.' })
    }
  }
  const worst = findings.reduce<Finding | undefined>((w, f) => (w === undefined || order[f.risk] > order[w.risk] ? f : w), undefined)
  return {
    credentialId: c.id,
    label: c.label,
    source: c.source,
    status: c.status,
    scopes: c.scopes,
    createdAt: c.createdAt,
    expiresAt: c.expiresAt,
    expired,
    expiresInDays: expiresAt === null ? null : Math.floor((expiresAt - now) / DAY),
    lastUsedAt: c.lastUsedAt,
    neverUsed: lastUsed === null && c.firstUsedAt === null,
    daysSinceLastUse: sinceUse,
    stale: usable && sinceUse !== null && sinceUse >= L.staleDays,
    rotatedAt: c.rotatedAt,
    rotationDue: age === null ? null : usable && age >= L.rotationDays,
    paused: c.status === 'paused',
    revoked: c.status === 'revoked',
    risk: worst?.risk ?? 'low',
    findings: findings.map((f) => f.code),
    recommendedAction: worst?.action ?? 'Nothing to do.',
  }
}

export interface LifecycleReport {
  readonly credentials: readonly CredentialLifecycle[]
  readonly summary: Readonly<Record<Risk, number>> & { readonly total: number }
  readonly limits: typeof LIFECYCLE_LIMITS
}

export function lifecycleReport(records: readonly CredentialRecord[], now = Date.now()): LifecycleReport {
  const credentials = records.map((r) => reviewCredential(r, now))
    .sort((a, b) => order[b.risk] - order[a.risk] || a.credentialId.localeCompare(b.credentialId))
  const summary = { low: 0, medium: 0, high: 0, critical: 0, total: credentials.length }
  for (const c of credentials) summary[c.risk]++
  return { credentials, summary, limits: LIFECYCLE_LIMITS }
}
