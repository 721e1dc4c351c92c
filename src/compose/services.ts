// The services one Gatehouse process runs with, built once from settings and shared by
// the HTTP layers, the CLI and the workers. Each is given what it calls at construction.
import type { Logger } from 'pino'
import type { Settings } from '../kernel/settings.js'
import type { Database } from '../store/database.js'
import { defaultRegistry, type ResourceRegistry } from '../resources/index.js'
import { StorageHealth } from '../store/storage-health.js'
import { ContentStore } from '../store/content-store.js'
import { RecordReader } from '../store/record-query.js'
import { CredentialService } from '../auth/credentials.js'
import { AdminTokenService } from '../auth/admin-tokens.js'
import { ScopeCatalog } from '../auth/scopes.js'
import { createRateLimiter } from '../auth/rate-limit.js'
import { CursorCodec } from '../kernel/cursor.js'
import { PageCache } from '../operations/page-cache.js'
import type { Services } from '../operations/services.js'
import { ChangeSignal } from '../store/change-signal.js'
import { siteSecret } from '../store/meta.js'
import { WebhookService } from '../webhooks/webhook-service.js'
import { ControlPlane } from '../control/control-plane.js'
import { auditAdminTokenChange, auditCredentialChange, auditJobEvent, auditOAuthEvent, auditWebhookOperation } from '../control/audit-hooks.js'
import { ProviderRegistry } from '../providers/provider-registry.js'
import { JobRuntime } from '../jobs/job-runtime.js'
import { MetricBuckets } from '../ops/metric-buckets.js'
import { OAuthService } from '../oauth/oauth-service.js'
import { revokeCredentialGrants } from '../oauth/oauth-grants.js'
import type { CredentialChangeHook } from '../auth/credentials.js'
import { BASE_PATH } from '../kernel/machine-route.js'
import { MCP_PATH } from '../contract/service-info.js'
import { PANEL_BASE } from '../panel/layout.js'


export interface ServiceOptions {
  /** The families to serve (default: every family declared in `src/resources/`). */
  readonly resources?: ResourceRegistry
}

/** Builds services on a migrated database. */
export async function createServices(settings: Settings, database: Database, logger: Logger, opts: ServiceOptions = {}): Promise<Services> {
  const resources = opts.resources ?? defaultRegistry
  const scopes = new ScopeCatalog(resources)
  // Delivery outcomes feed the charts, whichever worker (in this process) attempts them.
  const metricBuckets = new MetricBuckets(database.db)
  // A full disk is logged once and shown by readiness, diagnostics and an incident until a write commits.
  const storage = new StorageHealth(database, logger)
  // Webhook probes and DLQ replays are audited (DESIGN §8), whichever surface runs them.
  const webhooks = new WebhookService(database, settings, logger, {
    onOperation: auditWebhookOperation, onAttempt: (outcome) => metricBuckets.recordDelivery(outcome), isStorageFull: (err) => storage.noteError(err),
  })
  // Every write, whoever makes it (admin API, import, control actions), queues its events.
  const store = new ContentStore(database, resources, { hooks: [webhooks.outboxHook], onCommit: () => storage.noteWrite() })
  // Credential lifecycle changes land in the audit log, in their own transaction.
  const changes = new ChangeSignal(database, () => store.commits)
  // Revoking or deleting a credential an OAuth consent created ends its grants in the same
  // transaction: every code, access and refresh token is gone before any process asks again.
  const credentialChanged: CredentialChangeHook = async (tx, change) => {
    await auditCredentialChange(tx, change)
    if (change.action !== 'revoke' && change.action !== 'delete') return
    const grants = await revokeCredentialGrants(tx, change.credential.id)
    if (grants.length > 0) {
      await auditOAuthEvent(tx, {
        action: 'revoke', outcome: 'success', actor: change.by ?? { type: 'system', id: 'unattributed' }, entity: { type: 'credential', id: change.credential.id },
        summary: `Ended ${grants.length} OAuth grant${grants.length === 1 ? '' : 's'} of credential ${change.credential.id} (${change.action})`,
        metadata: { credentialId: change.credential.id, grantIds: grants, reason: change.action },
      })
    }
  }
  const credentials = new CredentialService(database, settings, { scopes, eventTypes: resources.eventTypes, onChange: credentialChanged })
  // A control execution made while its credential holds a job run open is that run's write
  // (origin `job`); the runtime is built below, and asked only when an action runs.
  const control = new ControlPlane(database, store, logger, scopes, { liveRunOf: (id): Promise<string | null> => jobs.liveRunOf(id) })
  // Workflow changes and run reports are audited too; run reports name approvals of the control plane.
  const jobs = new JobRuntime(database, {
    leaseMs: settings.jobsLeaseSeconds * 1000,
    overdueGraceMs: settings.jobsOverdueGraceSeconds * 1000,
    audit: auditJobEvent,
    approvalRequester: control.approvalRequester,
    credentialExists: async (id) => ((await credentials.exists(id)) ? (await credentials.get(id)).scopes : null),
    logger,
    boundaryAxes: resources.boundaryAxes,
  })
  const providers = new ProviderRegistry(settings, logger)
  const oauth = new OAuthService({
    settings, database, credentials, logger, audit: auditOAuthEvent,
    scopes: () => [...scopes.enabled(settings), ...providers.scopes()],
    isKnownScope: (x) => scopes.isKnown(x),
    // The MCP endpoint first: a client that names no resource gets tokens for it.
    resources: [settings.baseUrl + MCP_PATH, settings.baseUrl + BASE_PATH],
    consentPath: (uid) => `${PANEL_BASE}/oauth/consent/${uid}`,
  })
  return {
    settings,
    database,
    resources,
    scopes,
    store,
    reader: new RecordReader(database),
    credentials,
    adminTokens: new AdminTokenService(database, auditAdminTokenChange),
    rateLimiter: createRateLimiter(settings),
    cursors: new CursorCodec(await siteSecret(database.db, 'cursor_secret')),
    changes,
    // Off until the version can be known (PostgreSQL: while the change listener is connected).
    pageCache: new PageCache(() => changes.version()),
    webhooks,
    control,
    providers,
    oauth,
    jobs,
    metricBuckets,
    storage,
    logger,
    startedAt: Date.now(),
  }
}
