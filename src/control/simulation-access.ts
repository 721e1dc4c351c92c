// Simulation is not a read oracle. A simulation answers with what the action would touch as
// stored now (a variant's price and stock in limits[].actual, an order's refundable amount)
// and whether the records it names exist (payloadErrors), so simulating an action on a record
// counts as reading it: the caller needs the read scope of the action's family (else the 403
// a read gives), and the record is read first as GET /{family}/show?id= would read it for
// this caller, with its visibility rules and the job read boundary (the 404 or 403 a read
// gives). Only then is the action evaluated, so every value in the answer is one the caller
// may read. Both POST /control/policy-simulate and the MCP simulate_action tool come here.
import { ApiError, missingScope } from '../contract/errors.js'
import type { Caller } from '../auth/credentials.js'
import type { Services } from '../services.js'
import { showRecord } from '../api/operations/show-record.js'
import { boundaryOwner } from '../jobs/read-boundary.js'
import { schemaProblems } from '../store/validation.js'
import { actionOrThrow, type Evaluation } from './evaluate-action.js'

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
  if (typeof input.payload.section === 'string') await readSection(services, caller, input.payload.section)

  const evaluation = await services.control.simulate(caller, input)
  const target = evaluation.resolved?.target
  if (target?.entity?.type === family.type && String(id) !== target.entity.id) await readAs(services, caller, family.type, Number(target.entity.id))
  // A draft of a new entry: no entry to read yet, but its section is what the boundary names.
  if (target?.scope.kind === 'entry' && target.scope.entryId === null) await readSection(services, caller, target.scope.section)
  return evaluation
}

/** 403 while an open run's read boundary leaves out `section`. */
async function readSection(services: Services, caller: Caller, section: string): Promise<void> {
  const boundary = await services.jobs.readBoundary(caller.credentialId)
  if (boundary && !boundary.sections.includes(section)) {
    throw new ApiError('FORBIDDEN', `section ${section} is outside the read boundary of ${boundaryOwner(boundary)}, which limits this credential's reads while its run is open`)
  }
}

/** Reads the record as the caller would through the machine API; throws what that read answers. */
async function readAs(services: Services, caller: Caller, type: string, id: number): Promise<void> {
  const r = services.resources.byType(type)
  if (r) await showRecord(services, r, { id }, caller)
}
