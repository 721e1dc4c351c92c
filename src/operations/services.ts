// What one Gatehouse process runs with: the parts' services, built once by the composition root
// (compose/services.ts) and handed to operations and surfaces. Declared here, below the
// surfaces, so they name it without importing the root that builds it.
import type { Logger } from 'pino'
import type { Settings } from '../kernel/settings.js'
import type { CursorCodec } from '../kernel/cursor.js'
import type { Database } from '../store/database.js'
import type { ResourceRegistry } from '../resources/index.js'
import type { ContentStore } from '../store/content-store.js'
import type { RecordReader } from '../store/record-query.js'
import type { ChangeSignal } from '../store/change-signal.js'
import type { CredentialService } from '../auth/credentials.js'
import type { AdminTokenService } from '../auth/admin-tokens.js'
import type { ScopeCatalog } from '../auth/scopes.js'
import type { RateLimiter } from '../auth/rate-limit.js'
import type { WebhookService } from '../webhooks/webhook-service.js'
import type { ControlPlane } from '../control/control-plane.js'
import type { ProviderRegistry } from '../providers/provider-registry.js'
import type { JobRuntime } from '../jobs/job-runtime.js'
import type { MetricBuckets } from '../ops/metric-buckets.js'
import type { PageCache } from './page-cache.js'
import type { StorageHealth } from '../store/storage-health.js'
import type { OAuthService } from '../oauth/oauth-service.js'

export interface Services {
  readonly settings: Settings
  readonly database: Database
  /** The resource families this app serves; everything per family derives from it. */
  readonly resources: ResourceRegistry
  readonly scopes: ScopeCatalog
  readonly store: ContentStore
  readonly reader: RecordReader
  readonly credentials: CredentialService
  /** Managed admin API tokens (the setting's token is checked beside them). */
  readonly adminTokens: AdminTokenService
  readonly rateLimiter: RateLimiter
  readonly cursors: CursorCodec
  /** When content may have changed (this process's writes and, on PostgreSQL once started, every process's). */
  readonly changes: ChangeSignal
  readonly pageCache: PageCache
  /** Outbox hook (run by `store`), in-process delivery worker, probe, sink. */
  readonly webhooks: WebhookService
  /** Policies, approvals, executions and the audit log (DESIGN §8); its expiry timer runs only in the app. */
  readonly control: ControlPlane
  /** External resource providers (DESIGN §11): empty until `load()`, which the app calls. */
  readonly providers: ProviderRegistry
  /** Workflows, run reports with leases, the read boundary (DESIGN §9); its lease timer runs only in the app. */
  readonly jobs: JobRuntime
  /** Time-bucketed counters behind the control panel's charts, shared by every process through the database. */
  readonly metricBuckets: MetricBuckets
  /** Whether the database's disk is full, as this process last saw (507 STORAGE_FULL until a write succeeds). */
  readonly storage: StorageHealth
  /** Sign-in for agents (DESIGN §15): the authorization server, consent, OAuth access tokens. */
  readonly oauth: OAuthService
  readonly logger: Logger
  readonly startedAt: number
}
