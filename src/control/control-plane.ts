// The control plane of one process: policies, approvals, executions, the audit log and the
// approval expiry timer. Routes (machine API and admin API) and the CLI call these
// operations; every write they make is audited in its own transaction.
import type { Logger } from 'pino'
import { ApiError, invalidMany, notFound } from '../kernel/errors.js'
import type { Caller } from '../kernel/caller.js'
import type { ScopeCatalog } from '../auth/scopes.js'
import { generateId } from '../auth/tokens.js'
import type { ContentStore } from '../store/content-store.js'
import type { Database } from '../store/database.js'
import { appendAudit, type AuditInput } from './audit-log.js'
import { credentialActor, type Actor } from './actor.js'
import { checkBoundaries } from './boundaries.js'
import { payloadDigest } from './canonical-json.js'
import { actionOrThrow, evaluateAction, resolvePayload, reviewedStateOf, type Evaluation } from './evaluate-action.js'
import { executeAction, type ExecuteDeps, type ExecuteRequest } from './execute-action.js'
import { ExecutionStore } from './execution-store.js'
import { PolicyStore } from './policy-store.js'
import { resolvePolicy } from './policy.js'
import { ApprovalStore, type Approval } from './approval-store.js'
import { ApprovalExpiry } from './approval-expiry.js'
import { checkPendingApprovals } from './approval-limits.js'
import { PolicyGovernance, POLICY_UPSERT } from './policy-governance.js'
import type { Step } from './steps.js'
import { NO_LIVE_RUNS, type LiveRuns } from '../kernel/live-runs.js'
import { RoundTripUses } from './round-trip-uses.js'
import { recordedProvenance, type ApprovalSurface } from './provenance.js'

export interface ApprovalRequest {
  readonly actionType: string
  readonly payload: Record<string, unknown>
  readonly metadata: Approval['metadata']
  readonly reason?: string
}

/** Callers who see every approval and execution, not only their own. */
export const seesAll = (caller: Caller) => caller.scopes.has('control:approvals:decide') || caller.scopes.has('control:audit:read')

export class ControlPlane {
  readonly policies: PolicyStore
  readonly approvals: ApprovalStore
  readonly executions: ExecutionStore
  readonly expiry: ApprovalExpiry
  /** Policy changes: operators directly; credentials directly unless they relax control. */
  readonly policyChanges: PolicyGovernance
  /** Single use of approval round-trip request states (MCP 2026-07-28), across processes. */
  readonly roundTrips: RoundTripUses
  /** Test-only seams (see ExecuteDeps.testHooks). */
  readonly testHooks: { beforeSteps?: Step; afterSteps?: Step } = {}

  constructor(readonly database: Database, readonly store: ContentStore, private readonly logger: Logger, scopes: ScopeCatalog, private readonly runs: LiveRuns = NO_LIVE_RUNS) {
    this.policies = new PolicyStore(database, scopes)
    this.approvals = new ApprovalStore(database)
    this.executions = new ExecutionStore(database)
    this.expiry = new ApprovalExpiry(this.approvals, logger)
    this.policyChanges = new PolicyGovernance(database, this.policies, this.approvals, this.expiry, store.resources)
    this.roundTrips = new RoundTripUses(database)
  }

  /** Appends one audit record in a transaction of its own. */
  audit(input: AuditInput): Promise<unknown> {
    return this.database.db.transaction().execute((tx) => appendAudit(tx, input))
  }

  simulate(caller: Caller, body: { actionType: string; payload: Record<string, unknown>; approvalId?: string }): Promise<Evaluation> {
    return evaluateAction(this, { caller, ...body })
  }

  execute(caller: Caller, request: ExecuteRequest, key: string, requestId: string | null) {
    const deps: ExecuteDeps = { database: this.database, store: this.store, policies: this.policies, approvals: this.approvals, executions: this.executions, runs: this.runs, logger: this.logger, testHooks: this.testHooks }
    return executeAction(deps, caller, request, key, requestId)
  }

  /**
   * Records a request for approval, bound to the digest of its payload and, for an action
   * that applies stored content (a draft), to that content as it is now. Refused (and
   * audited) outside the caller's boundaries or under a disabled policy; a payload that
   * names nothing or breaks a limit is a 400 naming it.
   */
  async requestApproval(caller: Caller, request: ApprovalRequest, requestId: string | null, surface: ApprovalSurface = 'api'): Promise<Approval> {
    const body = { ...request, metadata: recordedProvenance(request.metadata, surface) }
    // A policy change that relaxes control is approved like an action (policy-governance.ts).
    if (body.actionType === POLICY_UPSERT) return this.policyChanges.requestChange(caller, body, requestId)
    const action = actionOrThrow(body.actionType)
    const { errors, resolved } = await resolvePayload(action, body.payload, this.store)
    if (errors.length > 0 || !resolved) throw invalidMany(errors)
    const actor = credentialActor(caller)
    await checkPendingApprovals(this.database.db, actor)
    const effective = resolvePolicy(await this.policies.list(), body.actionType, action.defaultRiskLevel)
    const boundary = checkBoundaries(this.store.resources, caller.boundaries, resolved.target)
    const refusal = !boundary.allowed ? boundary.problem : !effective.policy.enabled ? `policy ${effective.policy.handle} is disabled and blocks ${body.actionType}` : null
    if (refusal !== null) {
      await this.audit({
        category: 'approval', action: 'request', outcome: 'denied', actor, requestId, entity: resolved.target.entity,
        summary: `Refused approval request for ${body.actionType}: ${refusal}`, metadata: { actionType: body.actionType, ...provenance(body.metadata) },
      })
      throw new ApiError('FORBIDDEN', `Approval request refused: ${refusal}`)
    }
    const broken = action.limits(body.payload, resolved.current, effective.policy.limits).filter((l) => !l.ok)
    if (broken.length > 0) throw invalidMany(broken.map((l) => ({ param: l.param, problem: l.problem ?? `breaks ${l.name}` })))

    const now = Date.now()
    const id = generateId('apr')
    const expiresAt = now + Math.round(effective.policy.approvalTtlMinutes * 60_000)
    const digest = payloadDigest(body.payload)
    const reviewedState = reviewedStateOf(action, body.payload, resolved.current)
    const approval = await this.database.db.transaction().execute(async (tx) => {
      await this.approvals.insert(tx, {
        id, actionType: body.actionType, payload: body.payload, payloadDigest: digest, reviewedState, riskLevel: effective.riskLevel,
        requiredApprovals: effective.requiredApprovals, policyHandle: effective.policy.handle, requester: actor,
        metadata: body.metadata, reason: body.reason ?? null, target: resolved.target.entity, createdAt: now, expiresAt,
      })
      await appendAudit(tx, {
        category: 'approval', action: 'request', outcome: 'success', actor, requestId, entity: { type: 'approval', id },
        summary: `Requested approval of ${body.actionType} (${effective.requiredApprovals} approval${effective.requiredApprovals > 1 ? 's' : ''}, ${effective.riskLevel} risk)`,
        metadata: {
          actionType: body.actionType, payloadDigest: digest,
          ...(reviewedState ? { reviewedState: { subject: reviewedState.subject, digest: reviewedState.digest } } : {}), policyHandle: effective.policy.handle, riskLevel: effective.riskLevel,
          requiredApprovals: effective.requiredApprovals, target: resolved.target.entity, expiresAt: new Date(expiresAt).toISOString(),
          ...provenance(body.metadata),
        },
      }, now)
      return this.approvals.get(id, tx)
    })
    this.expiry.arm(expiresAt)
    return approval as Approval
  }

  /** One approval the caller may see (its own, or any for deciders and audit readers); 404 otherwise, as for a missing one. */
  async approvalFor(caller: Caller, id: string): Promise<Approval> {
    const { items } = await this.approvals.list({ id, requesterId: seesAll(caller) ? undefined : caller.credentialId, limit: 1 })
    if (items.length === 0) throw notFound(`No approval ${id}`)
    return items[0]
  }

  decide(id: string, decider: Actor, decision: 'approve' | 'reject', reason: string, requestId: string | null): Promise<Approval> {
    return this.approvals.decide(id, decider, decision, reason, requestId)
  }

  /** Who requested an approval (the job runtime checks a run report's approvalIds with it). */
  readonly approvalRequester = async (id: string): Promise<Actor | undefined> => (await this.approvals.get(id))?.requester

  /** Starts the approval expiry timer (with the app, when the control plane is on). */
  start(): void {
    this.expiry.start()
  }

  close(): Promise<void> {
    return this.expiry.stop()
  }
}

const provenance = (m: Approval['metadata']) => ({ source: m.source, agentId: m.agentId, traceId: m.traceId })
