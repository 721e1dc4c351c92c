// The services one Gatehouse process runs with, built once from settings and shared by
// the HTTP layers, the CLI and the workers.
import type { Logger } from 'pino'
import type { Settings } from './settings.js'
import type { Database } from './store/database.js'
import { ContentStore } from './store/content-store.js'
import { RecordReader } from './store/record-query.js'
import { CredentialService } from './auth/credentials.js'
import { createRateLimiter, type RateLimiter } from './auth/rate-limit.js'
import { CursorCodec } from './api/cursor.js'
import { PageCache } from './api/page-cache.js'
import { siteSecret } from './store/meta.js'
import { WebhookService } from './webhooks/webhook-service.js'
import { ControlPlane } from './control/control-plane.js'

export interface Services {
  readonly settings: Settings
  readonly database: Database
  readonly store: ContentStore
  readonly reader: RecordReader
  readonly credentials: CredentialService
  readonly rateLimiter: RateLimiter
  readonly cursors: CursorCodec
  readonly pageCache: PageCache
  /** Outbox hook (registered on `store`), in-process delivery worker, probe, sink. */
  readonly webhooks: WebhookService
  /** Policies, approvals, executions and the audit log (DESIGN §8); its expiry timer runs only in the app. */
  readonly control: ControlPlane
  readonly logger: Logger
  readonly startedAt: number
}

/** Builds services on a migrated database. */
export async function createServices(settings: Settings, database: Database, logger: Logger): Promise<Services> {
  const store = new ContentStore(database)
  const webhooks = new WebhookService(database, settings, logger)
  // Every write, whoever makes it (admin API, import, control actions), queues its events.
  store.addChangeHook(webhooks.outboxHook)
  const credentials = new CredentialService(database, settings)
  const control = new ControlPlane(database, store, logger)
  // Credential lifecycle changes land in the control plane's audit log, in their own transaction.
  credentials.onChange = control.auditCredentialChange
  // So do webhook probes and DLQ replays (DESIGN §8), whichever surface runs them.
  webhooks.onOperation = control.auditWebhookOperation
  return {
    settings,
    database,
    store,
    reader: new RecordReader(database),
    credentials,
    rateLimiter: createRateLimiter(settings.redisUrl),
    cursors: new CursorCodec(await siteSecret(database.db, 'cursor_secret')),
    // SQLite only: our own commits plus other processes' (data_version) version the pages.
    pageCache: new PageCache(() => (database.dataVersion ? `${store.commits}:${database.dataVersion()}` : undefined)),
    webhooks,
    control,
    logger,
    startedAt: Date.now(),
  }
}
