// Request and answer schemas of the job runtime: the machine API's /workflows routes (their
// answers are checked against the OpenAPI document built from these) and the admin API's
// workflow definitions. Enumerations are `enum` strings so a bad value's 400 lists the
// allowed ones.
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import { boundaryAnswerSchema, boundaryInputSchema, type BoundaryAxis } from '../resources/boundary-axes.js'
import { BOOLEAN_SPELLINGS } from '../kernel/booleans.js'
import { RUN_REPORT_STATUSES, RUN_STATUSES, WORKFLOW_STATUSES } from './workflow.js'

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])
const DateTime = (opts: { description?: string } = {}) => Type.String({ format: 'date-time', ...opts })
const OneOf = (values: readonly string[], description: string) => Type.String({ enum: [...values], description: `${description}: ${values.join(', ')}` })

export const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1..200' })
export const Cursor = Type.String({ minLength: 1, maxLength: 2048, description: 'pagination.nextCursor of the previous page' })
export const WorkflowId = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._:-]+$', description: 'A workflow id (wf_…)' })
export const TemplateKey = Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9][a-z0-9._-]*$', description: 'What the workers do, e.g. a /templates id such as scheduled-catalog-sync' })

export const ScheduleSchema = Type.Object({
  cron: Type.String({ minLength: 1, maxLength: 200, description: 'Five-field cron expression (minute hour day-of-month month day-of-week)' }),
  timezone: Type.String({ minLength: 1, maxLength: 100, description: 'IANA time zone the expression is read in, e.g. Europe/Berlin or UTC' }),
}, { additionalProperties: false })

const Config = Type.Object({}, { additionalProperties: true, description: 'Free configuration handed to the workers' })

const common = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  templateKey: TemplateKey,
  credentialId: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$', description: 'The credential the workflow runs as' }),
  schedule: ScheduleSchema,
  config: Config,
  // A union of literals, not `enum`: the runtime checks bodies with TypeBox, which ignores `enum`.
  status: Type.Union(WORKFLOW_STATUSES.map((v) => Type.Literal(v)), { description: `Status: ${WORKFLOW_STATUSES.join(', ')}` }),
}

const OutcomeRefSchema = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 100, description: 'What kind of record the run produced or touched (product, execution, …)' }),
  id: Type.String({ minLength: 1, maxLength: 200 }),
}, { additionalProperties: false })

export const RunSchema = Type.Object({
  id: Type.String(),
  workflowId: Type.String(),
  occurrence: DateTime(),
  status: OneOf(RUN_STATUSES, 'Run status'),
  workerId: Nullable(Type.String()),
  summary: Nullable(Type.String()),
  approvalIds: Type.Array(Type.String()),
  outcomeRefs: Type.Array(OutcomeRefSchema),
  metadata: Type.Object({}, { additionalProperties: true }),
  startedAt: DateTime(),
  updatedAt: DateTime(),
  finishedAt: Nullable(DateTime()),
  leaseExpiresAt: Nullable(DateTime({ description: 'Until when the run holds its occurrence; null once reported ended' })),
}, { additionalProperties: false })

/** A workflow's answer properties before its boundary. */
const workflowProperties = {
  id: Type.String(),
  name: Type.String(),
  templateKey: Type.String(),
  credentialId: Type.String(),
  schedule: ScheduleSchema,
}

/** A workflow's answer properties after its boundary. */
const workflowRest = {
  config: Config,
  status: OneOf(WORKFLOW_STATUSES, 'Status'),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  nextDueAt: Nullable(DateTime({ description: 'The scheduled time the workflow waits for (past while it is due); null while paused' })),
  isDue: Type.Boolean({ description: 'Active, its time has come and no run holds a live lease: a started report would claim it now' }),
  overdue: Type.Boolean({ description: 'Due for longer than PLUGIN_GATEHOUSE_JOBS_OVERDUE_GRACE_SECONDS' }),
  latestRun: Nullable(RunSchema),
}

/** The schemas that hold a boundary, for the registry's axes (one set per axes list). */
export interface WorkflowSchemas {
  readonly create: TObject
  readonly update: TObject
  /** A workflow as answered. */
  readonly workflow: TObject
}

const built = new WeakMap<readonly BoundaryAxis[], WorkflowSchemas>()

export function workflowSchemas(axes: readonly BoundaryAxis[]): WorkflowSchemas {
  const known = built.get(axes)
  if (known) return known
  const definition = { ...common, boundary: Nullable(boundaryInputSchema(axes, { limits: true })) }
  const schemas = {
    create: Type.Object({
      name: definition.name,
      templateKey: definition.templateKey,
      credentialId: definition.credentialId,
      schedule: definition.schedule,
      boundary: Type.Optional(definition.boundary),
      config: Type.Optional(definition.config),
      status: Type.Optional(definition.status),
    }, { additionalProperties: false }),
    update: Type.Object({
      name: Type.Optional(definition.name),
      templateKey: Type.Optional(definition.templateKey),
      credentialId: Type.Optional(definition.credentialId),
      schedule: Type.Optional(definition.schedule),
      boundary: Type.Optional(definition.boundary),
      config: Type.Optional(definition.config),
    }, { additionalProperties: false, minProperties: 1 }),
    workflow: Type.Object({ ...workflowProperties, boundary: Nullable(boundaryAnswerSchema(axes, 'While a run of this workflow is open, its credential reads only these records')), ...workflowRest }, { additionalProperties: false }),
  }
  built.set(axes, schemas)
  return schemas
}

export const WorkflowsQuery = Type.Object({
  dueOnly: Type.Optional(Type.String({ enum: [...BOOLEAN_SPELLINGS], description: `Only workflows due now: ${BOOLEAN_SPELLINGS.join(', ')}` })),
  status: Type.Optional(OneOf(WORKFLOW_STATUSES, 'Status filter')),
  templateKey: Type.Optional(TemplateKey),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor),
}, { additionalProperties: false })

export const WorkflowShowQuery = Type.Object({ id: WorkflowId }, { additionalProperties: false })

export const RunReportBody = Type.Object({
  workflowId: WorkflowId,
  status: OneOf(RUN_REPORT_STATUSES, 'What the run is doing'),
  runId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._:-]+$', description: 'The run reported on; with started, renews that run\'s lease (same workerId) or names a new run' })),
  workerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Which worker holds the run; later reports on the run must give the same one' })),
  summary: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  approvalIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, description: 'Approvals this credential requested for the run' })),
  outcomeRefs: Type.Optional(Type.Array(OutcomeRefSchema, { maxItems: 200 })),
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Merged into the run\'s metadata' })),
}, { additionalProperties: false })
