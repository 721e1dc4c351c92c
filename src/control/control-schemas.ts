// Request and answer schemas of the control-plane routes. Answers are exact (no undeclared
// property is sent) because every machine-API answer is checked against the published
// OpenAPI document, which is built from these.
import { Type, type TSchema } from '@sinclair/typebox'
import { RISK_LEVELS } from './policy.js'
import { AUDIT_CATEGORIES } from './audit-log.js'

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])
const DateTime = () => Type.String({ format: 'date-time' })
export const literals = (values: readonly string[], description?: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {})
const FreeObject = (description: string) => Type.Object({}, { additionalProperties: true, description })

export const RiskLevel = literals(RISK_LEVELS)
const DecisionValue = Type.Union([Type.Literal('approve'), Type.Literal('reject')])
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'consumed'] as const
export const EXECUTION_STATUSES = ['succeeded', 'failed', 'blocked'] as const

export const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1..200' })
export const Cursor = Type.String({ minLength: 1, maxLength: 2048, description: 'pagination.nextCursor of the previous page' })
export const ActionType = Type.String({ minLength: 1, maxLength: 100, description: 'A registered action, e.g. entry.updateDraft' })
export const Payload = Type.Object({}, { additionalProperties: true, description: "The action's payload; its schema depends on actionType (docs/control-plane.md)" })

const ActorSchema = Type.Object({
  type: literals(['credential', 'admin', 'system', 'cli']),
  id: Type.String(),
}, { additionalProperties: false })

const Entity = Type.Object({ type: Type.String(), id: Type.String() }, { additionalProperties: false })

export const PolicyLimitsSchema = Type.Object({
  maxPriceChangePercent: Type.Optional(Type.Number({ minimum: 0, description: 'variant.setPrice: largest change in percent of the current price' })),
  maxRefundAmount: Type.Optional(Type.Number({ minimum: 0, description: 'order.refund: largest single refund' })),
  maxStockAdjustment: Type.Optional(Type.Integer({ minimum: 0, description: 'variant.adjustStock: largest |delta|' })),
  allowNegativeStock: Type.Optional(Type.Boolean({ description: 'variant.adjustStock: stock may fall below 0' })),
}, { additionalProperties: false })

export const PolicySchema = Type.Object({
  handle: Type.String(),
  displayName: Type.String(),
  actionPattern: Type.String(),
  enabled: Type.Boolean(),
  requiresApproval: Type.Boolean(),
  riskLevel: Nullable(RiskLevel),
  requiredApprovals: Nullable(Type.Union([Type.Literal(1), Type.Literal(2)])),
  requiredScope: Nullable(Type.String()),
  approvalTtlMinutes: Type.Number(),
  limits: PolicyLimitsSchema,
  builtIn: Type.Boolean({ description: 'The built-in policy that applies when no policy matches' }),
  createdAt: Nullable(DateTime()),
  updatedAt: Nullable(DateTime()),
  updatedBy: Nullable(Type.String()),
}, { additionalProperties: false })

const policyFields = {
  handle: Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9][a-z0-9._-]*$' }),
  displayName: Type.String({ minLength: 1, maxLength: 200 }),
  actionPattern: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._*-]+$', description: '`*` matches any run of characters' }),
  enabled: Type.Optional(Type.Boolean({ default: true, description: 'A disabled policy blocks the actions it decides' })),
  requiresApproval: Type.Optional(Type.Boolean({ default: true })),
  riskLevel: Type.Optional(Nullable(RiskLevel)),
  requiredApprovals: Type.Optional(Nullable(Type.Union([Type.Literal(1), Type.Literal(2)], { description: 'Default: 2 for high and critical risk, else 1' }))),
  requiredScope: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  approvalTtlMinutes: Type.Optional(Type.Number({ minimum: 0.01, maximum: 43_200, default: 60 })),
  limits: Type.Optional(PolicyLimitsSchema),
}

/** A policy as an operator writes it (admin API), and the payload of a `policy.upsert` approval. */
export const PolicyFields = Type.Object(policyFields, { additionalProperties: false })

/** The machine API's upsert: the policy, and the approval a change that relaxes control needs. */
export const PolicyUpsertBody = Type.Object({
  ...policyFields,
  approvalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'An approved policy.upsert approval for exactly this policy (needed when the change relaxes control)' })),
}, { additionalProperties: false })

const Decision = Type.Object({
  decider: ActorSchema,
  decision: literals(['approve', 'reject']),
  reason: Type.String(),
  at: DateTime(),
}, { additionalProperties: false })

export const ApprovalSchema = Type.Object({
  id: Type.String(),
  actionType: Type.String(),
  payload: Payload,
  payloadDigest: Type.String({ description: 'SHA-256 (hex) of the canonical JSON of payload; execution must present the same payload' }),
  reviewedState: Nullable(Type.Object({
    subject: Type.String({ description: 'What the content is (draft 12)' }),
    content: FreeObject('The content as it was when approval was requested (for entry.publishDraft: entryId, section, type, title, slug, fields)'),
    digest: Type.String({ description: 'SHA-256 (hex) of the canonical JSON of content' }),
  }, { additionalProperties: false, description: 'Stored content the action applies besides its payload (the draft of entry.publishDraft), as approved; execution is blocked when it has changed since. Null for other actions' })),
  status: literals(APPROVAL_STATUSES),
  riskLevel: RiskLevel,
  requiredApprovals: Type.Integer({ minimum: 1, maximum: 2 }),
  approvalsGiven: Type.Integer({ minimum: 0 }),
  policyHandle: Type.String(),
  requester: ActorSchema,
  metadata: Type.Object({ source: Type.String(), agentId: Type.String(), traceId: Type.String() }, { additionalProperties: true }),
  reason: Nullable(Type.String()),
  target: Nullable(Entity),
  decisions: Type.Array(Decision),
  createdAt: DateTime(),
  expiresAt: DateTime(),
  decidedAt: Nullable(DateTime()),
  consumedAt: Nullable(DateTime()),
  executionId: Nullable(Type.String()),
}, { additionalProperties: false })

const Provenance = Type.Object({
  source: Type.String({ minLength: 1, maxLength: 200, description: 'What sent the request (an integration, an assistant)' }),
  agentId: Type.String({ minLength: 1, maxLength: 200, description: 'Which agent or worker' }),
  traceId: Type.String({ minLength: 1, maxLength: 200, description: 'Correlates the request with the caller’s own logs' }),
}, { additionalProperties: true, description: 'Provenance: source, agentId and traceId are required; other members are kept' })

export const ApprovalRequestBody = Type.Object({
  actionType: ActionType,
  payload: Payload,
  metadata: Provenance,
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Why the change is wanted, shown to deciders' })),
}, { additionalProperties: false })

export const DecideBody = Type.Object({
  approvalId: Type.String({ minLength: 1, maxLength: 100 }),
  decision: DecisionValue,
  reason: Type.String({ minLength: 1, maxLength: 2000 }),
}, { additionalProperties: false })

export const AdminDecideBody = Type.Object({
  decision: DecisionValue,
  reason: Type.String({ minLength: 1, maxLength: 2000 }),
}, { additionalProperties: false })

export const ApprovalsQuery = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(literals(APPROVAL_STATUSES)),
  actionType: Type.Optional(ActionType),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor),
}, { additionalProperties: false })

const StepReport = Type.Object({
  name: Type.String(),
  status: literals(['done', 'undone', 'failed', 'skipped'], 'done: ran; undone: ran, then compensated when a later step failed; failed: threw; skipped: not reached'),
}, { additionalProperties: false })

export const ExecutionSchema = Type.Object({
  id: Type.String(),
  actionType: Type.String(),
  status: literals(EXECUTION_STATUSES),
  reasons: Type.Array(Type.String(), { description: 'Why it was blocked (empty otherwise)' }),
  idempotencyKey: Type.String(),
  approvalId: Nullable(Type.String()),
  payload: Payload,
  payloadDigest: Type.String(),
  policyHandle: Type.String(),
  riskLevel: RiskLevel,
  executor: ActorSchema,
  target: Nullable(Entity),
  result: Nullable(FreeObject('What the action wrote (ids, previous and new values)')),
  steps: Type.Array(StepReport),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false })),
  metadata: Nullable(FreeObject('The metadata given with the request')),
  createdAt: DateTime(),
}, { additionalProperties: false })

export const ExecuteBody = Type.Object({
  actionType: ActionType,
  payload: Payload,
  approvalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'An approved approval for exactly this actionType and payload' })),
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Free provenance (source, agentId, traceId, …), kept with the execution' })),
}, { additionalProperties: false })

export const ExecutionsQuery = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(literals(EXECUTION_STATUSES)),
  actionType: Type.Optional(ActionType),
  approvalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor),
}, { additionalProperties: false })

export const SimulateBody = Type.Object({
  actionType: ActionType,
  payload: Payload,
  approvalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
}, { additionalProperties: false })

export const SimulationSchema = Type.Object({
  actionType: Type.String(),
  decision: literals(['execute', 'blocked', 'invalid', 'forbidden'], 'What execute would answer now: run the action, record a blocked execution, 400, or 403'),
  wouldExecute: Type.Boolean(),
  reasons: Type.Array(Type.String()),
  policy: Type.Object({
    handle: Type.String(),
    builtIn: Type.Boolean(),
    actionPattern: Type.String(),
    enabled: Type.Boolean(),
    requiresApproval: Type.Boolean(),
    riskLevel: RiskLevel,
    requiredApprovals: Type.Integer({ minimum: 1, maximum: 2 }),
    requiredScope: Nullable(Type.String()),
    approvalTtlMinutes: Type.Number(),
  }, { additionalProperties: false }),
  approval: Type.Object({
    required: Type.Boolean(),
    approvalId: Nullable(Type.String()),
    status: Nullable(literals(APPROVAL_STATUSES)),
    approvalsGiven: Type.Integer({ minimum: 0 }),
    approvalsRequired: Type.Integer({ minimum: 1, maximum: 2 }),
    payloadMatches: Nullable(Type.Boolean()),
    reviewedStateMatches: Nullable(Type.Boolean({ description: 'Whether the stored content the approval covers (a draft) is unchanged since it was requested; null when it covers none' })),
    usable: Type.Boolean(),
  }, { additionalProperties: false }),
  missingScopes: Type.Array(Type.String()),
  payloadErrors: Type.Array(Type.Object({ param: Type.String(), problem: Type.String() }, { additionalProperties: false })),
  limits: Type.Array(Type.Object({
    name: Type.String(),
    source: literals(['policy', 'action']),
    max: Nullable(Type.Number()),
    actual: Nullable(Type.Number()),
    ok: Type.Boolean(),
    problem: Nullable(Type.String()),
  }, { additionalProperties: false })),
  boundaries: Type.Object({
    bounded: Type.Boolean({ description: 'The credential has boundaries' }),
    allowed: Type.Boolean(),
    problem: Nullable(Type.String()),
  }, { additionalProperties: false }),
  target: Nullable(Entity),
}, { additionalProperties: false })

export const AuditRecordSchema = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  at: DateTime(),
  category: Type.String(),
  action: Type.String(),
  outcome: literals(['success', 'failure', 'blocked', 'denied']),
  actor: ActorSchema,
  requestId: Nullable(Type.String()),
  entity: Nullable(Entity),
  summary: Type.String(),
  metadata: FreeObject('Details of the event'),
  prevHash: Type.String({ description: 'hash of the record before (64 zeros for the first)' }),
  hash: Type.String({ description: 'SHA-256 (hex) over prevHash followed by the canonical JSON of the record without its hashes' }),
}, { additionalProperties: false })

export const AuditQuery = Type.Object({
  category: Type.Optional(literals(AUDIT_CATEGORIES)),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  outcome: Type.Optional(literals(['success', 'failure', 'blocked', 'denied'])),
  actorId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  entityType: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  entityId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Only records at or after this time' })),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor),
}, { additionalProperties: false })
