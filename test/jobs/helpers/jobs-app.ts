// A test app for the job runtime: the admin token configured, the job runtime on a clock the
// test moves (no waiting), and helpers to define workflows and report runs.
import type { DialectName } from '../../../src/store/database.js'
import { buildTestApp, type TestApp, type TestDatabase, type TestResponse } from '../../helpers/test-app.js'
import { adminClient, dataOf, type AdminClient } from '../../admin/helpers/admin-client.js'

export const ADMIN_TOKEN = 'adm_jobs_test_5c1e9a7d3b2f48e6a0d4c8b1f7e2a9c3'
export const WORKFLOWS = '/gatehouse/v1/workflows'
export const WORKER_SCOPES = ['jobs:read', 'jobs:report']

export interface Clock {
  now(): number
  set(iso: string | number): void
  advance(ms: number): void
}

export interface JobsApp extends TestApp {
  readonly admin: AdminClient
  readonly clock: Clock
  /** A managed credential: its id and token. */
  worker(scopes?: readonly string[], extra?: Record<string, unknown>): Promise<{ id: string; token: string }>
  /** Creates a workflow through the admin API; answers its view. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  define(body: Record<string, unknown>): Promise<any>
  report(token: string, body: Record<string, unknown>): Promise<TestResponse>
  /** Audit records of category job, oldest first. */
  jobAudit(): Promise<{ action: string; outcome: string; actor_type: string; actor_id: string; entity_id: string | null; summary: string; metadata: string }[]>
}

export async function jobsApp(dialect: DialectName, opts: { env?: Record<string, string>; database?: TestDatabase; start?: string } = {}): Promise<JobsApp> {
  const app = await buildTestApp({ dialect, database: opts.database, env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN, ...opts.env } })
  let now = Date.parse(opts.start ?? '2025-06-02T08:00:00Z')
  const clock: Clock = {
    now: () => now,
    set: (t) => { now = typeof t === 'number' ? t : Date.parse(t) },
    advance: (ms) => { now += ms },
  }
  app.services.jobs.useClock(() => now)
  const admin = adminClient(app, ADMIN_TOKEN)
  return Object.assign(app, {
    admin,
    clock,
    async worker(scopes: readonly string[] = WORKER_SCOPES, extra: Record<string, unknown> = {}) {
      const { credential, token } = await app.services.credentials.create({ label: 'worker', scopes, ...extra })
      return { id: credential.id, token }
    },
    async define(body: Record<string, unknown>) {
      return dataOf(await admin.post('/workflows', { name: 'Nightly sync', templateKey: 'scheduled-catalog-sync', schedule: { cron: '0 * * * *', timezone: 'UTC' }, ...body }), 201)
    },
    report: (token: string, body: Record<string, unknown>) => app.post(`${WORKFLOWS}/run-report`, body, token),
    async jobAudit() {
      return app.database.db.selectFrom('control_audit').select(['action', 'outcome', 'actor_type', 'actor_id', 'entity_id', 'summary', 'metadata'])
        .where('category', '=', 'job').orderBy('id').execute() as never
    },
  })
}
