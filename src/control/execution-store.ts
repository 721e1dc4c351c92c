// Stored executions. One row per (credential, Idempotency-Key): the unique index is what
// makes the second of two concurrent requests with one key lose, whatever it was doing.
import type { Database, Db } from '../store/database.js'
import type { Actor } from './actor.js'
import type { RiskLevel } from './policy.js'
import type { StepReport } from './steps.js'

export type ExecutionStatus = 'succeeded' | 'failed' | 'blocked'

export interface Execution {
  readonly id: string
  readonly actionType: string
  readonly status: ExecutionStatus
  readonly reasons: readonly string[]
  readonly idempotencyKey: string
  readonly approvalId: string | null
  readonly payload: Record<string, unknown>
  readonly payloadDigest: string
  readonly policyHandle: string
  readonly riskLevel: RiskLevel
  readonly executor: Actor
  readonly target: { type: string; id: string } | null
  readonly result: Record<string, unknown> | null
  readonly steps: readonly StepReport[]
  readonly error: { code: string; message: string } | null
  readonly metadata: Record<string, unknown> | null
  readonly createdAt: string
}

export interface StoredExecution extends Execution {
  readonly requestDigest: string
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v))
const parse = <T>(v: unknown): T | null => (v === null || v === undefined ? null : (JSON.parse(v as string) as T))

function fromRow(row: Record<string, unknown>): StoredExecution {
  return {
    id: row.id as string,
    actionType: row.action_type as string,
    status: row.status as ExecutionStatus,
    reasons: parse<string[]>(row.reasons) ?? [],
    idempotencyKey: row.idempotency_key as string,
    approvalId: (row.approval_id as string | null) ?? null,
    payload: parse<Record<string, unknown>>(row.payload) ?? {},
    payloadDigest: row.payload_digest as string,
    policyHandle: row.policy_handle as string,
    riskLevel: row.risk_level as RiskLevel,
    executor: { type: 'credential', id: row.credential_id as string },
    target: row.target_type === null || row.target_type === undefined ? null : { type: row.target_type as string, id: row.target_id as string },
    result: parse(row.result),
    steps: parse<StepReport[]>(row.steps) ?? [],
    error: parse(row.error),
    metadata: parse(row.metadata),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    requestDigest: row.request_digest as string,
  }
}

/** The public view, without the request digest. */
export const executionView = ({ requestDigest: _digest, ...execution }: StoredExecution): Execution => execution

export interface ExecutionQuery {
  readonly executorId?: string
  readonly id?: string
  readonly status?: ExecutionStatus
  readonly actionType?: string
  readonly approvalId?: string
  readonly before?: { readonly createdAt: number; readonly id: string }
  readonly limit: number
}

export class ExecutionStore {
  constructor(private readonly database: Database) {}

  async byKey(credentialId: string, key: string, db: Db = this.database.db): Promise<StoredExecution | undefined> {
    const row = await db.selectFrom('control_executions').selectAll()
      .where('credential_id', '=', credentialId).where('idempotency_key', '=', key).executeTakeFirst()
    return row ? fromRow(row) : undefined
  }

  async insert(tx: Db, e: StoredExecution, requestId: string | null): Promise<void> {
    await tx.insertInto('control_executions').values({
      id: e.id, credential_id: e.executor.id, idempotency_key: e.idempotencyKey, request_digest: e.requestDigest,
      action_type: e.actionType, status: e.status, reasons: JSON.stringify(e.reasons), approval_id: e.approvalId,
      payload: JSON.stringify(e.payload), payload_digest: e.payloadDigest, policy_handle: e.policyHandle, risk_level: e.riskLevel,
      target_type: e.target?.type ?? null, target_id: e.target?.id ?? null, result: json(e.result), steps: JSON.stringify(e.steps),
      error: json(e.error), metadata: json(e.metadata), request_id: requestId, created_at: Date.parse(e.createdAt),
    }).execute()
  }

  async complete(tx: Db, id: string, result: Record<string, unknown>, steps: readonly StepReport[]): Promise<void> {
    await tx.updateTable('control_executions').set({ result: JSON.stringify(result), steps: JSON.stringify(steps) }).where('id', '=', id).execute()
  }

  async list(q: ExecutionQuery): Promise<{ items: Execution[]; hasMore: boolean }> {
    let query = this.database.db.selectFrom('control_executions').selectAll()
    if (q.executorId !== undefined) query = query.where('credential_id', '=', q.executorId)
    if (q.id !== undefined) query = query.where('id', '=', q.id)
    if (q.status !== undefined) query = query.where('status', '=', q.status)
    if (q.actionType !== undefined) query = query.where('action_type', '=', q.actionType)
    if (q.approvalId !== undefined) query = query.where('approval_id', '=', q.approvalId)
    const before = q.before
    if (before) query = query.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]))
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit + 1).execute()
    return { items: rows.slice(0, q.limit).map((r) => executionView(fromRow(r))), hasMore: rows.length > q.limit }
  }
}
