// POST /control/actions/execute: evaluate, then either record a blocked execution or run the
// action's steps in one content-store transaction together with claiming the idempotency
// key, consuming the approval and auditing, so a success is all of those or none of them.
// A failed run leaves nothing from the action written and records a failed execution.
import type { Logger } from 'pino'
import { ApiError, invalidMany } from '../kernel/errors.js'
import type { Caller } from '../kernel/caller.js'
import type { LiveRuns } from '../kernel/live-runs.js'
import type { ChangeOrigin } from '../store/change-origin.js'
import { generateId } from '../auth/tokens.js'
import type { ContentStore } from '../store/content-store.js'
import type { Database } from '../store/database.js'
import { appendAudit, type AuditOutcome } from './audit-log.js'
import { canonicalJson, sha256Hex } from './canonical-json.js'
import { credentialActor } from './actor.js'
import { evaluateAction, reviewedStateOf, reviewedStateProblem } from './evaluate-action.js'
import { executionView, type Execution, type ExecutionStore, type StoredExecution } from './execution-store.js'
import type { PolicyStore } from './policy-store.js'
import type { ApprovalStore } from './approval-store.js'
import { LimitBreached, runSteps, StepFailure, type Step } from './steps.js'

export interface ExecuteRequest {
  readonly actionType: string
  readonly payload: Record<string, unknown>
  readonly approvalId?: string
  readonly metadata?: Record<string, unknown>
}

export interface ExecuteDeps {
  readonly database: Database
  readonly store: ContentStore
  readonly policies: PolicyStore
  readonly approvals: ApprovalStore
  readonly executions: ExecutionStore
  /** The run the executing credential is in: its writes then have the origin `job`. */
  readonly runs: LiveRuns
  readonly logger: Logger
  /**
   * Test-only: steps run before and after the action's own steps, inside the same transaction.
   * The rollback tests make one throw, or write what makes the action's own write fail, to
   * prove a failure leaves nothing written. Never set in a running service.
   */
  readonly testHooks: { beforeSteps?: Step; afterSteps?: Step }
}

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,200}$/

/** Thrown inside the transaction when the approval was used or expired after evaluation. */
class LateBlock extends Error {}

/** Digest the idempotency key is bound to: the whole request body, canonically. */
export const requestDigest = (r: ExecuteRequest) =>
  sha256Hex(canonicalJson({ actionType: r.actionType, payload: r.payload, approvalId: r.approvalId ?? null, metadata: r.metadata ?? null }))

export async function executeAction(deps: ExecuteDeps, caller: Caller, request: ExecuteRequest, key: string, requestId: string | null): Promise<{ execution: Execution; replayed: boolean }> {
  const digest = requestDigest(request)
  const earlier = await deps.executions.byKey(caller.credentialId, key)
  if (earlier) return { execution: replay(earlier, digest, key), replayed: true }

  const now = Date.now()
  const ev = await evaluateAction(deps, { caller, actionType: request.actionType, payload: request.payload, approvalId: request.approvalId }, now)
  if (ev.decision === 'invalid') throw invalidMany(ev.payloadErrors)
  if (request.approvalId !== undefined && ev.approval.record === null) throw new ApiError('NOT_FOUND', `No approval ${request.approvalId}`)
  const actor = credentialActor(caller)
  if (ev.decision === 'forbidden') {
    const problem = ev.boundary.problem ?? 'outside the credential\'s boundaries'
    await deps.database.db.transaction().execute((tx) => appendAudit(tx, {
      category: 'execution', action: 'execute', outcome: 'denied', actor, requestId, entity: ev.resolved?.target.entity ?? null,
      summary: `Refused ${request.actionType}: ${problem}`, metadata: { actionType: request.actionType, idempotencyKey: key, payloadDigest: ev.payloadDigest, ...provenanceOf(request.metadata) },
    }))
    throw new ApiError('FORBIDDEN', `Action refused: ${problem}`)
  }

  const base: StoredExecution = {
    id: generateId('exe'), actionType: request.actionType, status: 'blocked', reasons: [], idempotencyKey: key,
    approvalId: request.approvalId ?? null, payload: request.payload, payloadDigest: ev.payloadDigest,
    policyHandle: ev.effective.policy.handle, riskLevel: ev.effective.riskLevel, executor: actor,
    target: ev.resolved?.target.entity ?? null, result: null, steps: ev.action.steps.map((s) => ({ name: s.name, status: 'skipped' })),
    error: null, metadata: request.metadata ?? null, createdAt: new Date(now).toISOString(), requestDigest: digest,
  }
  if (ev.decision === 'blocked') return record(deps, { ...base, reasons: ev.reasons }, requestId)

  const origin = await writeOrigin(deps.runs, caller, base.id)
  const steps = [...(deps.testHooks.beforeSteps ? [deps.testHooks.beforeSteps] : []), ...ev.action.steps, ...(deps.testHooks.afterSteps ? [deps.testHooks.afterSteps] : [])]
  try {
    const execution = await deps.store.transaction(async (w) => {
      const running: StoredExecution = { ...base, status: 'succeeded', steps: steps.map((s) => ({ name: s.name, status: 'done' })) }
      // Claims the key first: a concurrent request with the same key waits here, then loses.
      await deps.executions.insert(w.tx, running, requestId)
      if (request.approvalId !== undefined && !(await deps.approvals.consume(w.tx, request.approvalId, base.id, now))) {
        throw new LateBlock(`approval ${request.approvalId} is no longer usable (used or expired meanwhile)`)
      }
      // The content the approval covers, read again under this transaction's locks: a draft
      // updated since evaluation is not published on the strength of the old approval.
      const approved = ev.approval.record
      if (approved?.reviewedState) {
        const problem = reviewedStateProblem(approved, reviewedStateOf(ev.action, request.payload, (await ev.action.resolve(request.payload, w)).current))
        if (problem !== null) throw new LateBlock(problem)
      }
      const { outputs, report } = await runSteps(steps, { w, payload: request.payload, executor: actor, limits: ev.effective.policy.limits, outputs: {} },
        (err) => deps.logger.error({ err, executionId: base.id }, 'undo of a control-plane step failed; the transaction rollback reverses it'))
      const result = ev.action.result(outputs)
      await deps.executions.complete(w.tx, base.id, result, report)
      const done: StoredExecution = { ...running, result, steps: report }
      await audit(w.tx, done, requestId, 'success')
      return done
    }, origin)
    return { execution: executionView(execution), replayed: false }
  } catch (err) {
    if (deps.database.adapter.isUniqueViolation(err)) {
      const winner = await deps.executions.byKey(caller.credentialId, key)
      if (winner) return { execution: replay(winner, digest, key), replayed: true }
    }
    if (err instanceof LateBlock) return record(deps, { ...base, reasons: [err.message] }, requestId)
    if (err instanceof StepFailure && err.error instanceof LimitBreached) return record(deps, { ...base, reasons: [err.error.message] }, requestId)
    const failure = err instanceof StepFailure ? err : new StepFailure(err, base.steps)
    return record(deps, { ...base, status: 'failed', steps: failure.report, error: publicError(failure.error, deps.logger, base.id) }, requestId)
  }
}

/**
 * Who the action's writes are from: the job run the credential holds open (a scheduled sync
 * writing back), or else this execution.
 */
async function writeOrigin(runs: LiveRuns, caller: Caller, executionId: string): Promise<ChangeOrigin> {
  const runId = await runs.liveRunOf(caller.credentialId)
  return runId === null
    ? { kind: 'control', credentialId: caller.credentialId, ref: executionId }
    : { kind: 'job', credentialId: caller.credentialId, ref: runId }
}

/** The stored execution for a reused key: the same body answers it again, another is a 409. */
function replay(earlier: StoredExecution, digest: string, key: string): Execution {
  if (earlier.requestDigest !== digest) throw new ApiError('CONFLICT', `Idempotency-Key ${key} was already used with a different body (execution ${earlier.id})`)
  return executionView(earlier)
}

/** Records a blocked or failed execution with its audit record, in a transaction of its own. */
async function record(deps: ExecuteDeps, e: StoredExecution, requestId: string | null): Promise<{ execution: Execution; replayed: boolean }> {
  try {
    await deps.database.db.transaction().execute(async (tx) => {
      await deps.executions.insert(tx, e, requestId)
      await audit(tx, e, requestId, e.status === 'blocked' ? 'blocked' : 'failure')
    })
    return { execution: executionView(e), replayed: false }
  } catch (err) {
    if (!deps.database.adapter.isUniqueViolation(err)) throw err
    const winner = await deps.executions.byKey(e.executor.id, e.idempotencyKey)
    if (!winner) throw err
    return { execution: replay(winner, e.requestDigest, e.idempotencyKey), replayed: true }
  }
}

function audit(tx: Parameters<typeof appendAudit>[0], e: StoredExecution, requestId: string | null, outcome: AuditOutcome) {
  return appendAudit(tx, {
    category: 'execution', action: 'execute', outcome, actor: e.executor, requestId,
    entity: { type: 'execution', id: e.id },
    summary: `${e.actionType} ${e.status}${e.reasons.length > 0 ? `: ${e.reasons.join('; ')}` : e.error ? `: ${e.error.message}` : ''}`,
    metadata: {
      actionType: e.actionType, status: e.status, reasons: e.reasons, approvalId: e.approvalId, idempotencyKey: e.idempotencyKey,
      payloadDigest: e.payloadDigest, policyHandle: e.policyHandle, riskLevel: e.riskLevel, target: e.target,
      result: e.result, error: e.error, steps: e.steps, ...provenanceOf(e.metadata),
    },
  })
}

/** The provenance members of an execution's metadata (source, agentId, traceId), repeated in its audit records. */
function provenanceOf(metadata: Record<string, unknown> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const key of ['source', 'agentId', 'traceId']) if (typeof metadata?.[key] === 'string') out[key] = metadata[key]
  return out
}

/** What a failed execution tells its caller: an ApiError's words, never an internal error's. */
function publicError(err: unknown, logger: Logger, executionId: string): { code: string; message: string } {
  if (err instanceof ApiError) {
    const details = (err.details ?? []).map((d) => `${d.param}: ${d.problem}`).join('; ')
    return { code: err.code, message: details ? `${err.message} (${details})` : err.message }
  }
  logger.error({ err, executionId }, 'control-plane action failed')
  return { code: 'INTERNAL_ERROR', message: 'The action failed and nothing was written; quote the execution id when reporting it' }
}
