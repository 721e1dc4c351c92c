// Adoption: how many credentials exist, how many clients actually use theirs, and how long
// it takes from issuing a credential to its first authenticated call (median and p90).
import type { CredentialRecord } from '../auth/credentials.js'

export interface AdoptionMetrics {
  /** Credentials that can be used or resumed (revoked ones excluded). */
  readonly credentialsConfigured: number
  readonly bySource: Readonly<Record<CredentialRecord['source'], number>>
  readonly usedAtLeastOnce: number
  readonly activeLast7Days: number
  readonly activeLast30Days: number
  readonly neverUsed: number
  readonly timeToFirstCall: {
    /** Credentials with both a creation time and a first call (managed ones). */
    readonly sampleSize: number
    readonly medianSeconds: number | null
    readonly p90Seconds: number | null
  }
  readonly computedAt: string
}

const DAY = 86_400_000

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[Math.min(sorted.length, rank) - 1]
}

export function adoptionMetrics(records: readonly CredentialRecord[], now = Date.now()): AdoptionMetrics {
  const live = records.filter((r) => r.status !== 'revoked')
  const lastUse = (r: CredentialRecord) => (r.lastUsedAt ? Date.parse(r.lastUsedAt) : r.firstUsedAt ? Date.parse(r.firstUsedAt) : null)
  const used = live.filter((r) => lastUse(r) !== null)
  const within = (d: number) => live.filter((r) => { const t = lastUse(r); return t !== null && now - t <= d * DAY }).length
  const delays = records
    .filter((r) => r.createdAt && r.firstUsedAt)
    .map((r) => Math.max(0, (Date.parse(r.firstUsedAt as string) - Date.parse(r.createdAt as string)) / 1000))
    .sort((a, b) => a - b)
  const bySource = { managed: 0, configured: 0, legacy: 0 }
  for (const r of live) bySource[r.source]++
  return {
    credentialsConfigured: live.length,
    bySource,
    usedAtLeastOnce: used.length,
    activeLast7Days: within(7),
    activeLast30Days: within(30),
    neverUsed: live.length - used.length,
    timeToFirstCall: { sampleSize: delays.length, medianSeconds: percentile(delays, 50), p90Seconds: percentile(delays, 90) },
    computedAt: new Date(now).toISOString(),
  }
}
