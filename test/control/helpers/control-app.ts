// A test app with the control plane on, the small catalog seeded, and helpers for the
// control routes. Every answer is still checked against the OpenAPI document.
import type { DialectName } from '../../../src/store/database.js'
import { buildTestApp, type TestApp, type TestResponse } from '../../helpers/test-app.js'
import { seedSmallCatalog } from '../../helpers/fixtures.js'

export const CONTROL = '/gatehouse/v1/control'

export const ALL_CONTROL_SCOPES = [
  'control:policies:read', 'control:policies:write', 'control:approvals:read', 'control:approvals:request',
  'control:approvals:decide', 'control:executions:read', 'control:actions:simulate', 'control:actions:execute', 'control:audit:read',
]

/**
 * What an agent holds: request, simulate, execute and read its own approvals and executions,
 * and read the families its actions touch (simulating an action on a record reads it).
 */
export const AGENT_SCOPES = ['control:approvals:request', 'control:approvals:read', 'control:actions:simulate', 'control:actions:execute', 'control:executions:read',
  'variants:read', 'orders:read', 'entries:read']

export const DECIDER_SCOPES = ['control:approvals:decide', 'control:approvals:read']

export const ADMIN_TOKEN = 'admin-token-for-control-tests'

export interface ControlApp extends TestApp {
  readonly ids: Readonly<Record<string, number>>
  /** A credential's token. */
  token(scopes: readonly string[], extra?: Record<string, unknown>): Promise<string>
  execute(token: string, body: unknown, key?: string): Promise<TestResponse>
  request(token: string, actionType: string, payload: Record<string, unknown>, extra?: Record<string, unknown>): Promise<TestResponse>
  decide(token: string, approvalId: string, decision: 'approve' | 'reject', reason?: string): Promise<TestResponse>
  /** Writes a policy as an operator (admin API): directly, relaxing or not. */
  upsertPolicy(policy: Record<string, unknown>): Promise<TestResponse>
  /** Writes a policy through the machine API with a credential holding control:policies:write (relaxing changes need an approval). */
  upsertPolicyAsCredential(policy: Record<string, unknown>, token?: string): Promise<TestResponse>
  /** A request to the admin API with the admin token. */
  admin(method: 'GET' | 'POST', url: string, body?: unknown): Promise<TestResponse>
  /** Number of rows in a table. */
  count(table: string): Promise<number>
  /** Audit records other than credential lifecycle ones (every issued test token adds one). */
  controlAuditCount(): Promise<number>
}

export const provenance = { source: 'test-suite', agentId: 'agent-1', traceId: 'trace-1' }

let keys = 0

export async function controlApp(dialect: DialectName, env: Record<string, string> = {}): Promise<ControlApp> {
  const app = await buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true', PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN, ...env } })
  const { ids } = await seedSmallCatalog(app.services.store)
  const policyToken = await app.issueToken(['control:policies:write'])
  const admin = async (method: 'GET' | 'POST', url: string, body?: unknown): Promise<TestResponse> => {
    const res = await app.app.inject({
      method, url: `/gatehouse/admin/v1${url}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    })
    return { statusCode: res.statusCode, headers: res.headers, body: res.body, json: () => JSON.parse(res.body) }
  }
  return Object.assign(app, {
    admin,
    ids,
    token: (scopes: readonly string[], extra?: Record<string, unknown>) => app.issueToken(scopes, extra),
    execute: (token: string, body: unknown, key = `key-${++keys}`) => app.post(`${CONTROL}/actions/execute`, body, token, { 'idempotency-key': key }),
    request: (token: string, actionType: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      app.post(`${CONTROL}/approvals/request`, { actionType, payload, metadata: provenance, ...extra }, token),
    decide: (token: string, approvalId: string, decision: 'approve' | 'reject', reason = 'looks right') =>
      app.post(`${CONTROL}/approvals/decide`, { approvalId, decision, reason }, token),
    upsertPolicy: (policy: Record<string, unknown>) => admin('POST', '/control/policies/upsert', policy),
    upsertPolicyAsCredential: (policy: Record<string, unknown>, token = policyToken) => app.post(`${CONTROL}/policies/upsert`, policy, token),
    async count(table: string) {
      const row = await app.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
      return Number(row.n)
    },
    async controlAuditCount() {
      const row = await app.database.db.selectFrom('control_audit').select((eb) => eb.fn.countAll().as('n')).where('category', '!=', 'credential').executeTakeFirstOrThrow()
      return Number(row.n)
    },
  })
}

/** A policy that lets `pattern` run without approval (for tests about execution itself). */
export const openPolicy = (handle: string, actionPattern: string, extra: Record<string, unknown> = {}) =>
  ({ handle, displayName: `Open ${actionPattern}`, actionPattern, requiresApproval: false, riskLevel: 'low', ...extra })
