// Who may change a policy, and how. Relaxing governance is itself governed:
//   - operators (admin API, control panel) write any change directly;
//   - a credential with control:policies:write writes a change directly only when it relaxes
//     nothing (policy-relaxation.ts); a change that relaxes control is a 409 naming what it
//     relaxes, until a different decider approves it as a `policy.upsert` approval, after
//     which the requester repeats the upsert with that approvalId (once, for exactly that
//     policy, while the stored policy and what the change relaxes are as they were when
//     approval was requested);
//   - "relaxes" covers a lax policy written where a stricter one shadows it (latent-relaxation.ts);
//   - every change is judged inside its write's transaction, under the policy lock, against
//     every policy as stored then (policy-lock.ts): concurrent writers take turns;
//   - a bounded credential may write only patterns covering actions its boundaries can
//     contain, and may not rewrite a policy that covers others.
// Every change is audited with the path taken; refusals are audited too.
import type { Static } from '@sinclair/typebox'
import { ApiError, invalidMany, missingScope, type ErrorDetail } from '../kernel/errors.js'
import type { Caller } from '../kernel/caller.js'
import { generateId } from '../auth/tokens.js'
import type { Database, Db } from '../store/database.js'
import { schemaProblems } from '../store/validation.js'
import { appendAudit, type AuditInput } from './audit-log.js'
import { credentialActor, type Actor } from './actor.js'
import { actionByType } from './actions/action-registry.js'
import { actionsOutsideBoundaries } from './boundaries.js'
import type { ResourceRegistry } from '../resources/index.js'
import { payloadDigest } from './canonical-json.js'
import { PolicyFields, type PolicyUpsertBody } from './control-schemas.js'
import { resolvePolicy, type Policy } from './policy.js'
import type { Relaxation } from './policy-relaxation.js'
import { changeRelaxations } from './latent-relaxation.js'
import { lockPolicies } from './policy-lock.js'
import { policyAuditView, policyOf, policySpec, type PolicyChangePath, type PolicySpec, type PolicyStore } from './policy-store.js'
import type { Approval, ApprovalStore, BoundState } from './approval-store.js'
import type { ApprovalExpiry } from './approval-expiry.js'
import { checkPendingApprovals } from './approval-limits.js'

/** The approval type of a policy change that relaxes control. */
export const POLICY_UPSERT = 'policy.upsert'
/** What approvals of policy changes name as their deciding policy. */
export const GOVERNANCE_HANDLE = 'builtin-policy-governance'
const WRITE_SCOPE = 'control:policies:write'
const APPROVAL_TTL_MINUTES = 60

export interface PolicyChangeRequest {
  readonly payload: Record<string, unknown>
  readonly metadata: Approval['metadata']
  readonly reason?: string
}

type Written = { policy: Policy; created: boolean }

/** A refusal found inside a policy write's transaction: audited once that has rolled back. */
class Refused extends Error {
  constructor(readonly error: ApiError, readonly record: AuditInput) {
    super(error.message)
  }
}

/**
 * The stored policy an approval of a change to `handle` covers besides its payload, and what
 * the change relaxes: if either differs when the approval is used, the approvers approved
 * something else.
 */
function reviewedState(handle: string, stored: Policy | undefined, relaxed: readonly Relaxation[]): BoundState {
  const content = { policy: stored ? policyAuditView(stored) : null, relaxations: relaxed.map((r) => r.problem) }
  return { subject: `policy ${handle}`, content, digest: payloadDigest(content) }
}

/**
 * Relaxing an action needs as many approvals as that action needed: two when one of them was
 * blocked or needed two (the built-in default for anything no policy covers).
 */
function approvalsNeeded(current: readonly Policy[], relaxed: readonly Relaxation[]): 1 | 2 {
  const needsTwo = relaxed.some((r) => {
    const action = actionByType(r.actionType)
    const before = resolvePolicy(current, r.actionType, action?.defaultRiskLevel ?? 'high')
    return !before.policy.enabled || (before.policy.requiresApproval && before.requiredApprovals === 2)
  })
  return needsTwo ? 2 : 1
}

/** One 409 detail per distinct relaxation, naming the field that causes it. */
function relaxationDetails(relaxed: readonly Relaxation[]): ErrorDetail[] {
  const out = new Map<string, ErrorDetail>()
  for (const r of relaxed) out.set(`${r.param}\n${r.problem}`, { param: r.param, problem: `relaxes control: ${r.problem}` })
  return [...out.values()]
}

export class PolicyGovernance {
  constructor(
    private readonly database: Database,
    private readonly policies: PolicyStore,
    private readonly approvals: ApprovalStore,
    private readonly expiry: ApprovalExpiry,
    /** The families, whose declared read boundaries say which actions a boundary can contain. */
    private readonly resources: ResourceRegistry,
  ) {}

  /** An operator's change: written directly, audited with what it relaxes. */
  byOperator(body: Static<typeof PolicyFields>, actor: Actor, requestId: string | null): Promise<Written> {
    const spec = policySpec(body)
    return this.policies.upsert(spec, actor, requestId, async (_tx, current) => ({ path: 'operator', relaxations: changeRelaxations(current, policyOf(spec, actor)) }))
  }

  /** A credential's change through the machine API (see the top of this file). */
  async byCredential(caller: Caller, body: Static<typeof PolicyUpsertBody>, requestId: string | null): Promise<Written> {
    const { approvalId, ...fields } = body
    const spec = policySpec(fields)
    const problems = this.policies.specProblems(spec)
    if (problems.length > 0) throw invalidMany(problems)
    const actor = credentialActor(caller)
    return this.auditingRefusals(() => this.policies.upsert(spec, actor, requestId, async (tx, current) => {
      this.checkBoundaries(caller, spec, current, 'policy', requestId)
      const relaxed = changeRelaxations(current, policyOf(spec, actor))
      if (approvalId !== undefined) return this.approvedPath(tx, caller, spec, approvalId, current, relaxed)
      if (relaxed.length === 0) return { path: 'direct', relaxations: [] }
      throw new Refused(new ApiError('CONFLICT',
        `This change relaxes control and needs an approval by another decider: POST /control/approvals/request with actionType ${POLICY_UPSERT} and this policy as payload, then repeat this upsert with the approved approvalId (or have an operator make it through the admin API)`,
        relaxationDetails(relaxed)), {
        category: 'policy', action: current.some((p) => p.handle === spec.handle) ? 'update' : 'create', outcome: 'blocked', actor, requestId,
        entity: { type: 'policy', id: spec.handle },
        summary: `Policy change to ${spec.handle} needs approval: it relaxes control (${relaxed.length} way${relaxed.length > 1 ? 's' : ''})`,
        metadata: { path: 'approval-required', after: spec, relaxations: relaxed.map((r) => r.problem) },
      })
    }))
  }

  /** POST /control/approvals/request with actionType policy.upsert: asks for approval of a policy change. */
  async requestChange(caller: Caller, request: PolicyChangeRequest, requestId: string | null): Promise<Approval> {
    if (!caller.scopes.has(WRITE_SCOPE)) throw missingScope(WRITE_SCOPE)
    const errors = schemaProblems(PolicyFields, request.payload, 'payload.')
    if (errors.length > 0) throw invalidMany(errors)
    const spec = policySpec(request.payload as Static<typeof PolicyFields>)
    const problems = this.policies.specProblems(spec, 'payload.')
    if (problems.length > 0) throw invalidMany(problems)
    const actor = credentialActor(caller)
    await checkPendingApprovals(this.database.db, actor)
    const now = Date.now()
    const id = generateId('apr')
    const expiresAt = now + APPROVAL_TTL_MINUTES * 60_000
    const payload = spec as unknown as Record<string, unknown>
    const digest = payloadDigest(payload)
    // Judged under the policy lock like a write, so what it records is what the state was.
    const approval = await this.auditingRefusals(() => this.database.db.transaction().execute(async (tx) => {
      await lockPolicies(this.database, tx)
      const current = await this.policies.list(tx)
      this.checkBoundaries(caller, spec, current, 'approval', requestId)
      const relaxed = changeRelaxations(current, policyOf(spec, actor))
      const requiredApprovals = approvalsNeeded(current, relaxed)
      const state = reviewedState(spec.handle, current.find((p) => p.handle === spec.handle), relaxed)
      await this.approvals.insert(tx, {
        id, actionType: POLICY_UPSERT, payload, payloadDigest: digest, reviewedState: state, riskLevel: 'high', requiredApprovals,
        policyHandle: GOVERNANCE_HANDLE, requester: actor, metadata: request.metadata, reason: request.reason ?? null,
        target: { type: 'policy', id: spec.handle }, createdAt: now, expiresAt,
      })
      await appendAudit(tx, {
        category: 'approval', action: 'request', outcome: 'success', actor, requestId, entity: { type: 'approval', id },
        summary: `Requested approval of a change to policy ${spec.handle} (${requiredApprovals} approval${requiredApprovals > 1 ? 's' : ''}): it relaxes control`,
        metadata: {
          actionType: POLICY_UPSERT, payloadDigest: digest, policyHandle: GOVERNANCE_HANDLE, riskLevel: 'high', requiredApprovals,
          target: { type: 'policy', id: spec.handle }, relaxations: relaxed.map((r) => r.problem), expiresAt: new Date(expiresAt).toISOString(),
          source: request.metadata.source, agentId: request.metadata.agentId, traceId: request.metadata.traceId,
        },
      }, now)
      return this.approvals.get(id, tx)
    }))
    this.expiry.arm(expiresAt)
    return approval as Approval
  }

  /**
   * The upsert with an approved policy.upsert approval, inside the write's transaction (after
   * the policy lock): usable once, for exactly that policy, while the stored policy and what
   * the change relaxes are as they were when approval was requested; consumed with the write.
   */
  private async approvedPath(tx: Db, caller: Caller, spec: PolicySpec, approvalId: string, current: readonly Policy[], relaxed: readonly Relaxation[]): Promise<PolicyChangePath> {
    const approval = await this.approvals.get(approvalId, tx)
    // Another credential's approval is not the caller's to use, nor to learn about.
    if (!approval || approval.requester.type !== 'credential' || approval.requester.id !== caller.credentialId) throw new ApiError('NOT_FOUND', `No approval ${approvalId}`)
    const refuse = (problem: string) => new ApiError('CONFLICT', `Approval ${approvalId} cannot be used: ${problem}`)
    const digest = payloadDigest(spec)
    if (approval.actionType !== POLICY_UPSERT || approval.payloadDigest !== digest) {
      throw refuse(`it was granted for ${approval.actionType === POLICY_UPSERT ? 'a different policy' : approval.actionType} (digest ${approval.payloadDigest}); this policy's digest is ${digest}`)
    }
    const now = Date.now()
    if (approval.status === 'expired' || now >= Date.parse(approval.expiresAt)) throw refuse(`it expired at ${approval.expiresAt}`)
    if (approval.status === 'pending') throw refuse(`it is pending (${approval.approvalsGiven} of ${approval.requiredApprovals} approvals)`)
    if (approval.status !== 'approved') throw refuse(`it was ${approval.status === 'consumed' ? 'already used' : approval.status}`)
    const stored = current.find((p) => p.handle === spec.handle)
    const then = approval.reviewedState?.content as { policy?: unknown; relaxations?: unknown } | undefined
    if (payloadDigest({ policy: then?.policy ?? null }) !== payloadDigest({ policy: stored ? policyAuditView(stored) : null })) {
      throw refuse(`policy ${spec.handle} has changed since approval was requested; request a new approval`)
    }
    if (reviewedState(spec.handle, stored, relaxed).digest !== approval.reviewedState?.digest) {
      throw refuse(`other policies have changed since approval was requested, and with them what this change relaxes (now: ${relaxed.map((r) => r.problem).join('; ') || 'nothing'}); request a new approval`)
    }
    const needed = approvalsNeeded(current, relaxed)
    if (approval.approvalsGiven < needed) throw refuse(`this change now needs ${needed} approvals; it has ${approval.approvalsGiven}; request a new approval`)
    if (!(await this.approvals.consume(tx, approvalId, null, now))) throw refuse('it was used or expired meanwhile')
    return { path: 'approval', approvalId, relaxations: relaxed }
  }

  /** A bounded credential writes only patterns its boundaries can contain, old and new (403, audited). */
  private checkBoundaries(caller: Caller, spec: PolicySpec, current: readonly Policy[], category: 'policy' | 'approval', requestId: string | null): void {
    const existing = current.find((p) => p.handle === spec.handle)
    const outside = [...new Set([
      ...actionsOutsideBoundaries(this.resources, caller.boundaries, spec.actionPattern),
      ...(existing ? actionsOutsideBoundaries(this.resources, caller.boundaries, existing.actionPattern) : []),
    ])]
    if (outside.length === 0) return
    const problem = `policy ${spec.handle} would govern ${outside.join(', ')}, outside the credential's boundaries`
    throw new Refused(new ApiError('FORBIDDEN', `Policy change refused: ${problem}`), {
      category, action: category === 'policy' ? (existing ? 'update' : 'create') : 'request', outcome: 'denied', actor: credentialActor(caller), requestId,
      entity: { type: 'policy', id: spec.handle }, summary: `Refused change to policy ${spec.handle}: ${problem}`,
      metadata: { actionType: POLICY_UPSERT, actionPattern: spec.actionPattern, outside },
    })
  }

  /** Runs a judged write; a refusal it throws is audited in a transaction of its own, then answered. */
  private async auditingRefusals<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write()
    } catch (err) {
      if (!(err instanceof Refused)) throw err
      await this.audit(err.record)
      throw err.error
    }
  }

  private audit(input: AuditInput): Promise<unknown> {
    return this.database.db.transaction().execute((tx) => appendAudit(tx, input))
  }
}
