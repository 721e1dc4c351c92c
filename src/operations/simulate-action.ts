// Simulation is not a read oracle. A simulation answers with what the action would touch as
// stored now (a variant's price and stock in limits[].actual, an order's refundable amount)
// and whether the records it names exist (payloadErrors), so simulating an action on a record
// counts as reading it: the caller needs the read scope of the action's family (else the 403
// a read gives), and the record is read first as GET /{family}/show?id= would read it for
// this caller, with its visibility rules and the job read boundary (the 404 or 403 a read
// gives). Only then is the action evaluated, so every value in the answer is one the caller
// may read. Both POST /control/policy-simulate and the MCP simulate_action tool come here.
//
// Asking for approval and executing are no read oracles either: an approval carries the
// reviewed state of what it would change (a draft's content) and a refused limit names what is
// stored (an order's refundable amount), so both read as simulation does before they run (a
// request with only control:approvals:request read a pending entry's draft and an order's
// totals; a bounded run's credential, records outside its boundary).
import { ApiError, missingScope } from '../kernel/errors.js'
import type { Caller } from '../kernel/caller.js'
import { boundaryOwner } from '../kernel/read-boundary.js'
import type { Services } from './services.js'
import { showRecord } from './show-record.js'
import { schemaProblems } from '../store/validation.js'
import { actionOrThrow, type Evaluation } from '../control/evaluate-action.js'
import type { ApprovalRequest } from '../control/control-plane.js'
import type { Approval } from '../control/approval-store.js'
import type { ExecuteRequest } from '../control/execute-action.js'
import type { ApprovalSurface } from '../control/provenance.js'
import { POLICY_UPSERT } from '../control/policy-governance.js'

export interface SimulateInput {
  readonly actionType: string
  readonly payload: Record<string, unknown>
  readonly approvalId?: string
}

export async function simulateAsReader(services: Services, caller: Caller, input: SimulateInput): Promise<Evaluation> {
  const action = actionOrThrow(input.actionType)
  const family = services.resources.byType(action.reads.family)
  if (!family) throw new Error(`action ${action.type} reads the unknown family ${action.reads.family}`)
  if (family.scope !== undefined && !caller.scopes.has(family.scope)) throw missingScope(family.scope)
  const id = action.reads.idParam === null ? undefined : input.payload[action.reads.idParam]
  // A payload that breaks its schema names nothing yet: the evaluation lists its problems.
  if (typeof id === 'number' && schemaProblems(action.payload, input.payload, 'payload.').length === 0) await readAs(services, caller, family.type, id)
  // A draft of a new entry names its section: outside the boundary before its existence is looked up.
  if (typeof input.payload.section === 'string') {
    await readFields(services, caller, family.type, { section: input.payload.section, id: null }, `section ${input.payload.section}`)
  }

  const evaluation = await services.control.simulate(caller, input)
  const target = evaluation.resolved?.target
  if (target?.entity?.type === family.type && String(id) !== target.entity.id) await readAs(services, caller, family.type, Number(target.entity.id))
  // A draft of a new entry: no entry to read yet, but its section is what the boundary names.
  if (target?.scope.kind === 'record' && target.scope.fields.id === null) await readFields(services, caller, target.scope.type, target.scope.fields, target.scope.what)
  return evaluation
}

/** An approval request, after reading what it names as the caller (a policy change names no record). */
export async function requestApprovalAsReader(services: Services, caller: Caller, request: ApprovalRequest, requestId: string | null, surface?: ApprovalSurface): Promise<Approval> {
  if (request.actionType !== POLICY_UPSERT) await simulateAsReader(services, caller, { actionType: request.actionType, payload: request.payload })
  return services.control.requestApproval(caller, request, requestId, surface)
}

/**
 * An execution, after reading what it names as the caller. A replay (the caller's key used
 * before) answers the stored execution as it was, whatever the records are now.
 */
export async function executeAsReader(services: Services, caller: Caller, request: ExecuteRequest, key: string, requestId: string | null) {
  if (!(await services.control.executions.byKey(caller.credentialId, key))) await simulateAsReader(services, caller, { actionType: request.actionType, payload: request.payload })
  return services.control.execute(caller, request, key, requestId)
}

/**
 * 403 while an open run's read boundary leaves out a record not written yet, by the fields its
 * family's `readBoundary` names (a new entry's section), as the read boundary places records.
 */
async function readFields(services: Services, caller: Caller, type: string, fields: Readonly<Record<string, unknown>>, what: string): Promise<void> {
  const boundary = await services.jobs.readBoundary(caller.credentialId)
  if (!boundary) return
  const inside = Object.entries(services.resources.byType(type)?.readBoundary ?? {}).some(([axis, column]) => {
    const value = fields[column]
    return (typeof value === 'string' || typeof value === 'number') && (boundary.values[axis] ?? []).includes(value)
  })
  if (!inside) throw new ApiError('FORBIDDEN', `${what} is outside the read boundary of ${boundaryOwner(boundary)}, which limits this credential's reads while its run is open`)
}

/** Reads the record as the caller would through the machine API; throws what that read answers. */
async function readAs(services: Services, caller: Caller, type: string, id: number): Promise<void> {
  const r = services.resources.byType(type)
  if (r) await showRecord(services, r, { id }, caller)
}
