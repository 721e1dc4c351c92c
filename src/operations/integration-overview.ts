// An integration (one credential) at a glance, for the control panel and the admin API:
// its traffic over the last 24 hours (requests, 4xx and 5xx answers, scope denials and
// rate-limit refusals, from the shared metric buckets), last use, sync checkpoints with
// their live lag, webhook interests and the deliveries routed to it, and lifecycle findings.
// It only calls other parts' functions; every number comes from the database, so every
// process shows the same.
import type { Services } from './services.js'
import type { CredentialRecord } from '../auth/credentials.js'
import { integrationLag, type CheckpointLag } from '../integration/sync-state-store.js'
import { countDeliveries } from '../webhooks/delivery-log.js'
import { reviewCredential, type CredentialLifecycle } from '../ops/lifecycle.js'
import { readSeries, totalsBySubject, type Series, type SeriesTotals } from '../ops/metric-buckets.js'

const DAY_MS = 86_400_000

export const NO_TRAFFIC: SeriesTotals = Object.freeze({
  requests: 0, clientErrors: 0, serverErrors: 0, authFailures: 0, scopeDenials: 0, rateLimited: 0, p95Ms: null, delivered: 0, failedAttempts: 0, deadLettered: 0,
})

export interface IntegrationRow {
  readonly credential: CredentialRecord
  /** The last 24 hours. */
  readonly traffic: SeriesTotals
  readonly lifecycle: CredentialLifecycle
}

export interface IntegrationOverview extends IntegrationRow {
  /** Requests and errors over the last 24 hours, in 15-minute points. */
  readonly series: Series
  readonly checkpoints: readonly CheckpointLag[]
  /** Deliveries whose routing matched this credential's webhook interests. */
  readonly deliveriesMatched: { readonly last24Hours: number; readonly last7Days: number }
}

/** Every credential with its last 24 hours of traffic and its lifecycle review. */
export async function listIntegrations(services: Services, now = Date.now()): Promise<IntegrationRow[]> {
  await services.credentials.flushUsage().catch(() => {})
  await services.metricBuckets.flush().catch(() => {})
  const traffic = await totalsBySubject(services.database.db, now - DAY_MS)
  return (await services.credentials.list()).map((credential) => ({
    credential, traffic: traffic.get(credential.id) ?? NO_TRAFFIC, lifecycle: reviewCredential(credential, now),
  }))
}

export async function integrationOverview(services: Services, credentialId: string, now = Date.now()): Promise<IntegrationOverview> {
  await services.credentials.flushUsage().catch(() => {})
  await services.metricBuckets.flush().catch(() => {})
  // From the list, which carries configured credentials' last use too; get() answers the 404.
  const credential = (await services.credentials.list()).find((c) => c.id === credentialId) ?? await services.credentials.get(credentialId)
  const { database } = services
  const series = await readSeries(database.db, { range: 'day', credentialId, now })
  return {
    credential,
    traffic: series.totals,
    lifecycle: reviewCredential(credential, now),
    series,
    checkpoints: await integrationLag(database.db, credentialId),
    deliveriesMatched: {
      last24Hours: await countDeliveries(database, { credential: credentialId, since: now - DAY_MS }),
      last7Days: await countDeliveries(database, { credential: credentialId, since: now - 7 * DAY_MS }),
    },
  }
}
