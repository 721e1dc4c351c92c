// Stored policies: listing, and upsert (create or replace by handle), which is audited in
// the same transaction as the change it records, with how the change was allowed. Who may
// make which change is decided in policy-governance.ts.
import type { Static } from '@sinclair/typebox'
import type { Database, Db } from '../store/database.js'
import { invalidMany } from '../kernel/errors.js'
import type { ScopeCatalog } from '../auth/scopes.js'
import { appendAudit } from './audit-log.js'
import { actionTypes } from './actions/action-registry.js'
import { BUILT_IN_HANDLE, patternRegex, type Policy, type PolicyLimits, type RiskLevel } from './policy.js'
import type { PolicyFields } from './control-schemas.js'
import type { Relaxation } from './policy-relaxation.js'
import type { Actor } from './actor.js'
import { lockPolicies } from './policy-lock.js'

const iso = (ms: unknown) => new Date(Number(ms)).toISOString()

function fromRow(row: Record<string, unknown>): Policy {
  return {
    handle: row.handle as string,
    displayName: row.display_name as string,
    actionPattern: row.action_pattern as string,
    enabled: Boolean(row.enabled),
    requiresApproval: Boolean(row.requires_approval),
    riskLevel: (row.risk_level as RiskLevel | null) ?? null,
    requiredApprovals: row.required_approvals === null ? null : (Number(row.required_approvals) as 1 | 2),
    requiredScope: (row.required_scope as string | null) ?? null,
    approvalTtlMinutes: Number(row.approval_ttl_minutes),
    limits: JSON.parse(row.limits as string) as PolicyLimits,
    builtIn: false,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    updatedBy: row.updated_by as string,
  }
}

/** A policy as written: every field, defaults filled in (what approvals bind to and upserts store). */
export type PolicySpec = Required<Omit<Static<typeof PolicyFields>, 'riskLevel' | 'requiredApprovals' | 'requiredScope'>>
  & { riskLevel: RiskLevel | null; requiredApprovals: 1 | 2 | null; requiredScope: string | null }

/** The spec an upsert body describes: fields left out take their defaults (an upsert replaces the whole policy). */
export function policySpec(body: Static<typeof PolicyFields>): PolicySpec {
  return {
    handle: body.handle, displayName: body.displayName, actionPattern: body.actionPattern,
    enabled: body.enabled ?? true, requiresApproval: body.requiresApproval ?? true,
    riskLevel: (body.riskLevel ?? null) as RiskLevel | null, requiredApprovals: body.requiredApprovals ?? null, requiredScope: body.requiredScope ?? null,
    approvalTtlMinutes: body.approvalTtlMinutes ?? 60, limits: body.limits ?? {},
  }
}

/** The policy a spec would store, for judging a change before it is written. */
export function policyOf(spec: PolicySpec, actor: Actor): Policy {
  return { ...spec, builtIn: false, createdAt: null, updatedAt: null, updatedBy: `${actor.type}:${actor.id}` }
}

/**
 * Problems of a spec beyond its schema (each a 400 naming the field, under `prefix`): the
 * built-in handle, a pattern matching no registered action, an unknown scope.
 */
export function specProblems(spec: PolicySpec, isKnownScope: (scope: string) => boolean, prefix = ''): { param: string; problem: string }[] {
  const out: { param: string; problem: string }[] = []
  if (spec.handle === BUILT_IN_HANDLE) out.push({ param: prefix + 'handle', problem: `${BUILT_IN_HANDLE} is the built-in policy; add a policy with actionPattern "*" to override it` })
  const re = patternRegex(spec.actionPattern)
  if (!actionTypes().some((t) => re.test(t))) out.push({ param: prefix + 'actionPattern', problem: `matches no registered action; actions: ${actionTypes().join(', ')}` })
  if (spec.requiredScope !== null && !isKnownScope(spec.requiredScope)) out.push({ param: prefix + 'requiredScope', problem: `unknown scope "${spec.requiredScope}"` })
  return out
}

/** How a policy change was allowed, for its audit record. */
export interface PolicyChangePath {
  /** operator: admin API or panel; direct: a credential, the change relaxes nothing; approval: a credential, with an approved approval. */
  readonly path: 'operator' | 'direct' | 'approval'
  readonly approvalId?: string
  readonly relaxations: readonly Relaxation[]
}

export class PolicyStore {
  constructor(private readonly database: Database, private readonly scopes: ScopeCatalog) {}

  /** Stored policies by handle (the built-in one is not stored). */
  async list(db: Db = this.database.db): Promise<Policy[]> {
    const rows = await db.selectFrom('control_policies').selectAll().orderBy('handle').execute()
    return rows.map(fromRow)
  }

  /** specProblems with this app's scope catalogue. */
  specProblems(spec: PolicySpec, prefix = ''): { param: string; problem: string }[] {
    return specProblems(spec, (scope) => this.scopes.isKnown(scope), prefix)
  }

  async get(handle: string, db: Db = this.database.db): Promise<Policy | undefined> {
    const row = await db.selectFrom('control_policies').selectAll().where('handle', '=', handle).executeTakeFirst()
    return row ? fromRow(row) : undefined
  }

  /**
   * Creates or replaces the policy `spec.handle`, audited with how the change was allowed.
   * `judge` decides that inside the write's transaction, after the policy lock, from every
   * stored policy as it is then (policy-lock.ts): it answers the path, or throws to refuse,
   * so a change, what allowed it and the state it was judged against commit together.
   */
  async upsert(spec: PolicySpec, actor: Actor, requestId: string | null, judge: (tx: Db, current: Policy[]) => Promise<PolicyChangePath>): Promise<{ policy: Policy; created: boolean }> {
    const problems = this.specProblems(spec)
    if (problems.length > 0) throw invalidMany(problems)
    const now = Date.now()
    return this.database.db.transaction().execute(async (tx) => {
      await lockPolicies(this.database, tx)
      const how = await judge(tx, await this.list(tx))
      const existing = await tx.selectFrom('control_policies').selectAll().where('handle', '=', spec.handle).executeTakeFirst()
      const values = {
        display_name: spec.displayName,
        action_pattern: spec.actionPattern,
        enabled: this.database.adapter.bool(spec.enabled),
        requires_approval: this.database.adapter.bool(spec.requiresApproval),
        risk_level: spec.riskLevel,
        required_approvals: spec.requiredApprovals,
        required_scope: spec.requiredScope,
        approval_ttl_minutes: spec.approvalTtlMinutes,
        limits: JSON.stringify(spec.limits),
        updated_at: now,
        updated_by: `${actor.type}:${actor.id}`,
      }
      if (existing) await tx.updateTable('control_policies').set(values).where('handle', '=', spec.handle).execute()
      else await tx.insertInto('control_policies').values({ handle: spec.handle, created_at: now, ...values }).execute()
      const row = await tx.selectFrom('control_policies').selectAll().where('handle', '=', spec.handle).executeTakeFirstOrThrow()
      const policy = fromRow(row)
      const before = existing ? fromRow(existing) : null
      await appendAudit(tx, {
        category: 'policy', action: existing ? 'update' : 'create', outcome: 'success', actor, requestId,
        entity: { type: 'policy', id: policy.handle },
        summary: `${existing ? 'Updated' : 'Created'} policy ${policy.handle} for ${policy.actionPattern} (${pathSummary(how)})`,
        metadata: {
          before: before && policyAuditView(before), after: policyAuditView(policy),
          path: how.path, approvalId: how.approvalId ?? null, relaxations: how.relaxations.map((r) => r.problem),
        },
      }, now)
      return { policy, created: !existing }
    })
  }
}

function pathSummary(how: PolicyChangePath): string {
  switch (how.path) {
    case 'operator': return how.relaxations.length > 0 ? 'by an operator; relaxes control' : 'by an operator'
    case 'direct': return 'direct: relaxes nothing'
    case 'approval': return `relaxes control; approved in ${how.approvalId ?? '?'}`
  }
}

/** What the audit keeps of a policy: the deciding fields, not timestamps. */
export function policyAuditView(p: Policy) {
  return {
    displayName: p.displayName, actionPattern: p.actionPattern, enabled: p.enabled, requiresApproval: p.requiresApproval,
    riskLevel: p.riskLevel, requiredApprovals: p.requiredApprovals, requiredScope: p.requiredScope,
    approvalTtlMinutes: p.approvalTtlMinutes, limits: p.limits,
  }
}
