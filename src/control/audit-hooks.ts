// Audit records of other parts' operations: credential lifecycle changes, webhook probes
// and replays, and the job runtime's events. Those services take these as hooks at construction and
// run them inside the operation's own transaction, so a change and its record commit together;
// callbacks, so those parts do not depend on the control plane.
import type { CredentialChangeHook } from '../auth/credentials.js'
import type { AdminTokenChangeHook } from '../auth/admin-tokens.js'
import type { WebhookOperationHook } from '../webhooks/webhook-service.js'
import type { JobAuditHook } from '../jobs/job-context.js'
import type { OAuthAuditHook } from '../oauth/oauth-audit.js'
import { appendAudit } from './audit-log.js'
import type { Actor } from './actor.js'

/** Who, as the audit log stores it: the request id is a column of its own, not part of the actor. */
function actorOf<A extends { readonly type: string; readonly id: string }>(by: A): Actor
function actorOf<A extends { readonly type: string; readonly id: string }>(by: A | undefined): Actor | undefined
function actorOf<A extends { readonly type: string; readonly id: string }>(by: A | undefined): Actor | undefined {
  return by === undefined ? undefined : { type: by.type, id: by.id } as Actor
}

/**
 * The credential service's change hook: every lifecycle change (admin API, panel, CLI) is
 * audited in the change's own transaction. Records carry the credential's id, label,
 * scopes and status, never its token or digest.
 */
export const auditCredentialChange: CredentialChangeHook = async (tx, change) => {
  const c = change.credential
  await appendAudit(tx, {
    category: 'credential', action: change.action, outcome: 'success',
    actor: actorOf(change.by) ?? { type: 'system', id: 'unattributed' }, requestId: change.by?.requestId ?? null, entity: { type: 'credential', id: c.id },
    summary: `${change.action} credential ${c.id} (${c.label})`,
    metadata: { label: c.label, scopes: c.scopes, status: c.status, expiresAt: c.expiresAt, boundaries: c.boundaries, ...(change.changed ? { changed: change.changed } : {}) },
  })
}

/** Admin tokens are credentials too: minting and revoking one is audited (never its value). */
export const auditAdminTokenChange: AdminTokenChangeHook = async (tx, change) => {
  const t = change.token
  await appendAudit(tx, {
    category: 'credential', action: change.action, outcome: 'success', actor: actorOf(change.by), requestId: change.by.requestId ?? null,
    entity: { type: 'admin_token', id: t.id },
    summary: `${change.action} admin token ${t.id} (${t.label})`,
    metadata: { label: t.label, status: t.status, tokenHint: t.tokenHint },
  })
}

/**
 * The webhook service's operation hook: probes (delivered, failed, or refused inside the
 * cooldown) and DLQ replays, whoever ran them, in the operation's own transaction. Records
 * carry the probe id, status code and target host (scheme, host, port), never the secret
 * or the URL's path; replays carry the mode (and a delivery-log filter as given) and the ids
 * put back in the queue.
 */
export const auditWebhookOperation: WebhookOperationHook = async (tx, op) => {
  if (op.kind === 'probe') {
    const a = op.attempt
    await appendAudit(tx, {
      category: 'webhook', action: 'probe', outcome: op.outcome === 'delivered' ? 'success' : op.outcome === 'failed' ? 'failure' : 'denied',
      actor: actorOf(op.by), requestId: op.by.requestId ?? null, entity: a ? { type: 'webhook_probe', id: a.probeId } : null,
      summary: a ? `Probe ${a.probeId} ${a.status}${a.statusCode !== null ? ` (HTTP ${a.statusCode})` : ''}` : 'Probe refused: one ran less than five minutes ago',
      metadata: a
        ? { result: op.outcome, probeId: a.probeId, statusCode: a.statusCode, error: a.error, durationMs: a.durationMs, targetHost: a.targetHost }
        : { result: op.outcome },
    })
    return
  }
  const { request, result } = op
  const dlq = request.mode === 'single' || request.mode === 'all'
  const noun = dlq ? `dead letter${result.replayed === 1 ? '' : 's'}` : `deliver${result.replayed === 1 ? 'y' : 'ies'}`
  await appendAudit(tx, {
    category: 'webhook', action: 'replay', outcome: 'success', actor: actorOf(op.by), requestId: op.by.requestId ?? null,
    entity: request.mode === 'single' ? { type: 'webhook_dead_letter', id: String(request.id) }
      : request.mode === 'delivery' ? { type: 'webhook_delivery', id: String(request.id) } : null,
    summary: `Replayed ${result.replayed} ${noun} (${request.mode})`,
    metadata: {
      mode: request.mode,
      ...(request.mode === 'all' ? { limit: request.limit } : request.mode === 'filter' ? { filter: request.params, limit: request.limit } : { id: request.id }),
      replayed: result.replayed, ids: result.ids,
    },
  })
}

/**
 * The job runtime's audit hook: workflow definition changes, run reports (refused ones
 * included) and lease expiries, in the transaction of what they record. Written whether or
 * not the control plane's routes are on, like credential changes.
 */
export const auditJobEvent: JobAuditHook = async (tx, e) => {
  await appendAudit(tx, { category: 'job', action: e.action, outcome: e.outcome, actor: e.actor, requestId: e.requestId, entity: e.entity, summary: e.summary, metadata: e.metadata })
}

/** Sign-in for agents: grants and refusals at the consent page, tokens issued, revocations (never a token or code). */
export const auditOAuthEvent: OAuthAuditHook = async (tx, e) => {
  await appendAudit(tx, { category: 'oauth', action: e.action, outcome: e.outcome, actor: e.actor, requestId: null, entity: e.entity, summary: e.summary, metadata: e.metadata })
}
