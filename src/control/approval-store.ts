// Approvals: pending → approved | rejected | expired; approved → consumed when an execution
// uses it (or expired when nobody does before expiresAt). Every change is a conditional
// update (on a version or on the status it leaves), so concurrent deciders, executors and
// expiry timers in several processes cannot both win.
import { ApiError } from '../kernel/errors.js'
import type { Database, Db } from '../store/database.js'
import { appendAudit } from './audit-log.js'
import { sameActor, SYSTEM_ACTOR, type Actor } from './actor.js'
import type { RiskLevel } from './policy.js'
import type { ReviewedState } from './actions/control-action.js'

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'consumed'

export interface ApprovalDecision {
  readonly decider: Actor
  readonly decision: 'approve' | 'reject'
  readonly reason: string
  readonly at: string
}

/** Stored content an approval covers besides its payload, and its digest (canonical JSON of content). */
export interface BoundState extends ReviewedState {
  readonly digest: string
}

export interface Approval {
  readonly id: string
  readonly actionType: string
  readonly payload: Record<string, unknown>
  readonly payloadDigest: string
  readonly reviewedState: BoundState | null
  readonly status: ApprovalStatus
  readonly riskLevel: RiskLevel
  readonly requiredApprovals: number
  readonly approvalsGiven: number
  readonly policyHandle: string
  readonly requester: Actor
  readonly metadata: { source: string; agentId: string; traceId: string } & Record<string, unknown>
  readonly reason: string | null
  readonly target: { type: string; id: string } | null
  readonly decisions: readonly ApprovalDecision[]
  readonly createdAt: string
  readonly expiresAt: string
  readonly decidedAt: string | null
  readonly consumedAt: string | null
  readonly executionId: string | null
}

interface Stored extends Approval {
  readonly version: number
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString())

function fromRow(row: Record<string, unknown>): Stored {
  const decisions = JSON.parse(row.decisions as string) as ApprovalDecision[]
  return {
    id: row.id as string,
    actionType: row.action_type as string,
    payload: JSON.parse(row.payload as string) as Record<string, unknown>,
    payloadDigest: row.payload_digest as string,
    reviewedState: row.reviewed_state === null || row.reviewed_state === undefined ? null : JSON.parse(row.reviewed_state as string) as BoundState,
    status: row.status as ApprovalStatus,
    riskLevel: row.risk_level as RiskLevel,
    requiredApprovals: Number(row.required_approvals),
    approvalsGiven: decisions.filter((d) => d.decision === 'approve').length,
    policyHandle: row.policy_handle as string,
    requester: { type: row.requester_type as Actor['type'], id: row.requester_id as string },
    metadata: JSON.parse(row.metadata as string) as Approval['metadata'],
    reason: (row.reason as string | null) ?? null,
    target: row.target_type === null || row.target_type === undefined ? null : { type: row.target_type as string, id: row.target_id as string },
    decisions,
    createdAt: iso(row.created_at) as string,
    expiresAt: iso(row.expires_at) as string,
    decidedAt: iso(row.decided_at),
    consumedAt: iso(row.consumed_at),
    executionId: (row.execution_id as string | null) ?? null,
    version: Number(row.version),
  }
}

/** The public view (without the optimistic-lock version). */
const view = ({ version: _version, ...approval }: Stored): Approval => approval

export interface NewApproval {
  readonly id: string
  readonly actionType: string
  readonly payload: Record<string, unknown>
  readonly payloadDigest: string
  readonly reviewedState: BoundState | null
  readonly riskLevel: RiskLevel
  readonly requiredApprovals: number
  readonly policyHandle: string
  readonly requester: Actor
  readonly metadata: Approval['metadata']
  readonly reason: string | null
  readonly target: { type: string; id: string } | null
  readonly createdAt: number
  readonly expiresAt: number
}

export interface ApprovalQuery {
  /** Only this requester's approvals (callers who are neither deciders nor audit readers). */
  readonly requesterId?: string
  readonly id?: string
  readonly status?: ApprovalStatus
  readonly actionType?: string
  /** Keyset position: newest first, so the page continues with older ones. */
  readonly before?: { readonly createdAt: number; readonly id: string }
  readonly limit: number
}

export class ApprovalStore {
  constructor(private readonly database: Database) {}

  async get(id: string, db: Db = this.database.db): Promise<Approval | undefined> {
    const row = await db.selectFrom('control_approvals').selectAll().where('id', '=', id).executeTakeFirst()
    return row ? view(fromRow(row)) : undefined
  }

  async insert(tx: Db, a: NewApproval): Promise<void> {
    await tx.insertInto('control_approvals').values({
      id: a.id, action_type: a.actionType, payload: JSON.stringify(a.payload), payload_digest: a.payloadDigest,
      reviewed_state: a.reviewedState === null ? null : JSON.stringify(a.reviewedState), status: 'pending', risk_level: a.riskLevel, required_approvals: a.requiredApprovals, policy_handle: a.policyHandle,
      requester_type: a.requester.type, requester_id: a.requester.id, metadata: JSON.stringify(a.metadata), reason: a.reason,
      target_type: a.target?.type ?? null, target_id: a.target?.id ?? null, decisions: '[]', version: 1,
      created_at: a.createdAt, expires_at: a.expiresAt,
    }).execute()
  }

  async list(q: ApprovalQuery): Promise<{ items: Approval[]; hasMore: boolean }> {
    let query = this.database.db.selectFrom('control_approvals').selectAll()
    if (q.requesterId !== undefined) query = query.where('requester_type', '=', 'credential').where('requester_id', '=', q.requesterId)
    if (q.id !== undefined) query = query.where('id', '=', q.id)
    if (q.status !== undefined) query = query.where('status', '=', q.status)
    if (q.actionType !== undefined) query = query.where('action_type', '=', q.actionType)
    const before = q.before
    if (before) query = query.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]))
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit + 1).execute()
    return { items: rows.slice(0, q.limit).map((r) => view(fromRow(r))), hasMore: rows.length > q.limit }
  }

  /**
   * Records one decision. Deciders differ from the requester and from each other; a reject
   * ends the approval, and it is approved once it has as many approvals as it requires.
   * Refused attempts to decide are audited too.
   */
  async decide(id: string, decider: Actor, decision: 'approve' | 'reject', reason: string, requestId: string | null, now = Date.now()): Promise<Approval> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await this.database.db.selectFrom('control_approvals').selectAll().where('id', '=', id).executeTakeFirst()
      if (!row) throw new ApiError('NOT_FOUND', `No approval ${id}`)
      const current = fromRow(row)
      if (current.status !== 'pending') throw new ApiError('CONFLICT', `Approval ${id} is already ${current.status}`)
      if (now >= Date.parse(current.expiresAt)) throw new ApiError('CONFLICT', `Approval ${id} expired at ${current.expiresAt}`)
      const refuse = async (message: string): Promise<never> => {
        await this.database.db.transaction().execute((tx) => appendAudit(tx, {
          category: 'approval', action: decision, outcome: 'denied', actor: decider, requestId,
          entity: { type: 'approval', id }, summary: `Refused ${decision} of approval ${id}: ${message}`, metadata: { actionType: current.actionType },
        }, now))
        throw new ApiError('FORBIDDEN', message)
      }
      if (sameActor(decider, current.requester)) await refuse('The requester of an approval cannot decide it')
      if (current.decisions.some((d) => sameActor(d.decider, decider))) await refuse('This decider has already approved; the second approval must come from a different decider')

      const decisions: ApprovalDecision[] = [...current.decisions, { decider, decision, reason, at: new Date(now).toISOString() }]
      const given = decisions.filter((d) => d.decision === 'approve').length
      const status: ApprovalStatus = decision === 'reject' ? 'rejected' : given >= current.requiredApprovals ? 'approved' : 'pending'
      const updated = await this.database.db.transaction().execute(async (tx) => {
        const res = await tx.updateTable('control_approvals')
          .set({ decisions: JSON.stringify(decisions), status, version: current.version + 1, decided_at: status === 'pending' ? null : now })
          .where('id', '=', id).where('version', '=', current.version).executeTakeFirst()
        // Someone else decided meanwhile: read again and re-apply the rules.
        if (Number(res.numUpdatedRows) !== 1) return undefined
        await appendAudit(tx, {
          category: 'approval', action: decision, outcome: 'success', actor: decider, requestId,
          entity: { type: 'approval', id },
          summary: `${decision === 'approve' ? 'Approved' : 'Rejected'} ${current.actionType} (${given} of ${current.requiredApprovals} approvals; now ${status})`,
          metadata: { actionType: current.actionType, status, approvalsGiven: given, requiredApprovals: current.requiredApprovals, reason },
        }, now)
        return this.get(id, tx)
      })
      if (updated) return updated
    }
    throw new ApiError('CONFLICT', `Approval ${id} changed while it was being decided; try again`)
  }

  /** Marks an approved approval as used (by `executionId`, null for a policy change) inside that write's transaction; false if it is no longer usable. */
  async consume(tx: Db, id: string, executionId: string | null, now: number): Promise<boolean> {
    const res = await tx.updateTable('control_approvals')
      .set((eb) => ({ status: 'consumed', consumed_at: now, execution_id: executionId, version: eb('version', '+', 1) }))
      .where('id', '=', id).where('status', '=', 'approved').where('expires_at', '>', now).executeTakeFirst()
    return Number(res.numUpdatedRows) === 1
  }

  /** Expires pending and approved approvals whose time is up; each expiry is audited. Returns how many. */
  async expireDue(now = Date.now()): Promise<number> {
    const due = await this.database.db.selectFrom('control_approvals').select(['id', 'status', 'action_type'])
      .where('status', 'in', ['pending', 'approved']).where('expires_at', '<=', now).orderBy('expires_at').limit(500).execute()
    let expired = 0
    for (const row of due) {
      const done = await this.database.db.transaction().execute(async (tx) => {
        const res = await tx.updateTable('control_approvals')
          .set((eb) => ({ status: 'expired', decided_at: now, version: eb('version', '+', 1) }))
          .where('id', '=', row.id as string).where('status', '=', row.status as string).where('expires_at', '<=', now).executeTakeFirst()
        // Another process expired, decided or consumed it first.
        if (Number(res.numUpdatedRows) !== 1) return false
        await appendAudit(tx, {
          category: 'approval', action: 'expire', outcome: 'success', actor: SYSTEM_ACTOR, requestId: null,
          entity: { type: 'approval', id: row.id as string },
          summary: `Approval of ${row.action_type as string} expired while ${row.status as string}`,
          metadata: { actionType: row.action_type, previousStatus: row.status },
        }, now)
        return true
      })
      if (done) expired++
    }
    return expired
  }
}
