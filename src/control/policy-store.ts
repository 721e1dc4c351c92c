// Stored policies: listing, resolution for an action, and upsert (create or replace by
// handle), which is audited in the same transaction as the change it records.
import type { Static } from '@sinclair/typebox'
import type { Database } from '../store/database.js'
import { invalid } from '../contract/errors.js'
import type { ScopeCatalog } from '../auth/scopes.js'
import { appendAudit } from './audit-log.js'
import { actionTypes } from './actions/action-registry.js'
import { BUILT_IN_HANDLE, patternRegex, type Policy, type PolicyLimits, type RiskLevel } from './policy.js'
import type { PolicyUpsertBody } from './control-schemas.js'
import type { Actor } from './actor.js'

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

export class PolicyStore {
  constructor(private readonly database: Database, private readonly scopes: ScopeCatalog) {}

  /** Stored policies by handle (the built-in one is not stored). */
  async list(): Promise<Policy[]> {
    const rows = await this.database.db.selectFrom('control_policies').selectAll().orderBy('handle').execute()
    return rows.map(fromRow)
  }

  /** Creates or replaces the policy `body.handle`; fields left out take their defaults. */
  async upsert(body: Static<typeof PolicyUpsertBody>, actor: Actor, requestId: string | null): Promise<{ policy: Policy; created: boolean }> {
    if (body.handle === BUILT_IN_HANDLE) throw invalid('handle', `${BUILT_IN_HANDLE} is the built-in policy; add a policy with actionPattern "*" to override it`)
    const re = patternRegex(body.actionPattern)
    if (!actionTypes().some((t) => re.test(t))) throw invalid('actionPattern', `matches no registered action; actions: ${actionTypes().join(', ')}`)
    if (body.requiredScope !== undefined && body.requiredScope !== null && !this.scopes.isKnown(body.requiredScope)) {
      throw invalid('requiredScope', `unknown scope "${body.requiredScope}"`)
    }
    const now = Date.now()
    return this.database.db.transaction().execute(async (tx) => {
      const existing = await tx.selectFrom('control_policies').selectAll().where('handle', '=', body.handle).executeTakeFirst()
      const values = {
        display_name: body.displayName,
        action_pattern: body.actionPattern,
        enabled: this.database.adapter.bool(body.enabled ?? true),
        requires_approval: this.database.adapter.bool(body.requiresApproval ?? true),
        risk_level: body.riskLevel ?? null,
        required_approvals: body.requiredApprovals ?? null,
        required_scope: body.requiredScope ?? null,
        approval_ttl_minutes: body.approvalTtlMinutes ?? 60,
        limits: JSON.stringify(body.limits ?? {}),
        updated_at: now,
        updated_by: `${actor.type}:${actor.id}`,
      }
      if (existing) await tx.updateTable('control_policies').set(values).where('handle', '=', body.handle).execute()
      else await tx.insertInto('control_policies').values({ handle: body.handle, created_at: now, ...values }).execute()
      const row = await tx.selectFrom('control_policies').selectAll().where('handle', '=', body.handle).executeTakeFirstOrThrow()
      const policy = fromRow(row)
      const before = existing ? fromRow(existing) : null
      await appendAudit(tx, {
        category: 'policy', action: existing ? 'update' : 'create', outcome: 'success', actor, requestId,
        entity: { type: 'policy', id: policy.handle },
        summary: `${existing ? 'Updated' : 'Created'} policy ${policy.handle} for ${policy.actionPattern}`,
        metadata: { before: before && policyAuditView(before), after: policyAuditView(policy) },
      }, now)
      return { policy, created: !existing }
    })
  }
}

/** What the audit keeps of a policy: the deciding fields, not timestamps. */
function policyAuditView(p: Policy) {
  return {
    displayName: p.displayName, actionPattern: p.actionPattern, enabled: p.enabled, requiresApproval: p.requiresApproval,
    riskLevel: p.riskLevel, requiredApprovals: p.requiredApprovals, requiredScope: p.requiredScope,
    approvalTtlMinutes: p.approvalTtlMinutes, limits: p.limits,
  }
}
