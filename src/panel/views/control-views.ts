// The Approvals and Audit screens (control plane on). Approvals: pending ones with their
// payload, the dual-approval progress and approve/reject forms; recent history. Audit:
// the newest records and whether the hash chain verifies.
import { html, plural, prettyJson, when, type Html } from '../html.js'
import { csrfField, PANEL_BASE } from '../layout.js'
import { cell } from './format.js'
import type { PanelSession } from '../panel-sessions.js'
import type { Approval } from '../../control/approval-store.js'
import type { AuditRecord, AuditVerification } from '../../control/audit-log.js'
import type { ApprovalReview } from '../../control/approval-review.js'
import type { RecordChange } from '../../control/change-preview.js'
import { limitsTable, limitsText } from './policy-views.js'

const badge = (text: string) => html`<span class="badge ${text}">${text}</span>`
const actor = (a: { type: string; id: string }) => html`${a.type} <code>${a.id}</code>`

function decisions(a: Approval): Html {
  return a.decisions.length === 0 ? html`<span class="muted">no decisions yet</span>`
    : html`<ul>${a.decisions.map((d) => html`<li>${d.decision} by ${actor(d.decider)} at ${when(d.at)}: ${d.reason}</li>`)}</ul>`
}

/** Who asks: the credential is the identity; the source is the surface the request came in by; names are as declared. */
function provenance(a: Approval): Html {
  const m = a.metadata
  const declared = Array.isArray(m.declared) ? m.declared as string[] : []
  const agent = declared.includes('agentId') ? html`agent name as declared by the client: <q>${m.agentId}</q>` : html`agent ${m.agentId}`
  const by = typeof m.declaredSource === 'string' ? html`, which says it is <q>${m.declaredSource}</q>` : ''
  return html`<span class="muted provenance">(via ${m.source}${by}; ${agent}${typeof m.agentVersion === 'string' ? html` ${m.agentVersion}` : ''}; trace ${m.traceId})</span>`
}

const value = (v: unknown) => html`<code>${JSON.stringify(v) ?? 'null'}</code>`

/** One record the execution would write: each value now and after (a created one: its values; a removed one: that it goes). */
function recordChange(c: RecordChange): Html {
  const name = c.id === null ? `a new ${c.type} record` : `${c.type} ${c.id}`
  if (c.kind === 'delete') return html`<h3 class="record-change">${name}: removed</h3>`
  return html`<h3 class="record-change">${name}${c.kind === 'create' ? ': created' : ''}</h3>${c.fields.length === 0 ? html`<p class="muted">No stored value would change.</p>` : html`<table class="cards changes">
    <thead><tr><th>Field</th><th>Now</th><th>After</th></tr></thead><tbody>
    ${c.fields.map((f) => html`<tr>${cell('Field', html`<code>${f.field}</code>`)}${cell('Now', c.kind === 'create' ? html`<span class="muted">—</span>` : value(f.before))}${cell('After', value(f.after))}</tr>`)}
  </tbody></table>`}`
}

/** The policy deciding the action now, its limits in words, and each limit beside this request's value. */
function policyLimits(a: Approval, r: ApprovalReview): Html {
  const p = r.policy
  if (!p) return html``
  const limits = limitsText(p)
  const then = p.handle !== a.policyHandle ? html` <span class="fail">(requested under <code>${a.policyHandle}</code>; the policy deciding it has changed since)</span>` : ''
  return html`<section id="approval-limits"><h2>Policy and limits</h2>
    <p>Decided by ${p.builtIn ? html`the built-in policy` : html`policy <strong>${p.displayName}</strong> <code>${p.handle}</code>`} (actions <code>${p.actionPattern}</code>)${then}.
      ${limits === '—' ? 'It sets no limits' : `Its limits: ${limits}`}. Limits are checked against the values now, and again when the action executes.</p>
    ${r.limits.length === 0 ? html`<p class="muted">No limit applies to ${a.actionType}.</p>` : limitsTable(r.limits)}</section>`
}

/** The page of one approval: what will change, the policy and its limits, who asks, and the decision forms while pending. */
export function approvalPage(s: PanelSession, a: Approval, r: ApprovalReview): Html {
  return html`<h1>Approval <code>${a.id}</code> ${badge(a.status)}</h1>
    <section id="approval-changes"><h2>${a.actionType} on ${r.target ?? '—'}</h2>
      ${r.stale ? html`<p class="fail">${r.stale}</p>` : ''}
      ${r.problem ? html`<p class="fail">What it would change cannot be shown: ${r.problem}</p>` : r.records.map(recordChange)}</section>
    ${policyLimits(a, r)}
    ${a.status === 'pending' ? pendingCard(s, a) : html`<section><dl class="kv"><dt>Requested by</dt><dd>${actor(a.requester)} at ${when(a.createdAt)} ${provenance(a)}</dd>
      <dt>Policy</dt><dd>${a.policyHandle} (${a.riskLevel} risk, ${a.requiredApprovals} approval${a.requiredApprovals > 1 ? 's' : ''})</dd><dt>Decisions</dt><dd>${decisions(a)}</dd></dl></section>`}`
}

function pendingCard(s: PanelSession, a: Approval): Html {
  return html`<section id="approval-${a.id}"><h2>${a.actionType} ${badge(a.riskLevel)}</h2><dl class="kv">
    <dt>Approval</dt><dd><code>${a.id}</code></dd>
    <dt>Progress</dt><dd><strong class="progress">${a.approvalsGiven} of ${a.requiredApprovals} approvals</strong>${a.requiredApprovals > 1 ? html` <span class="muted">(two different deciders, neither the requester)</span>` : ''}</dd>
    <dt>Requested by</dt><dd>${actor(a.requester)} at ${when(a.createdAt)} ${provenance(a)}</dd>
    <dt>Reason</dt><dd>${a.reason ?? '—'}</dd><dt>Target</dt><dd>${a.target ? `${a.target.type} ${a.target.id}` : '—'}</dd>
    <dt>Policy</dt><dd>${a.policyHandle} (${a.riskLevel} risk, limits checked at request and again at execution)</dd><dt>Expires</dt><dd>${when(a.expiresAt)}</dd><dt>Decisions</dt><dd>${decisions(a)}</dd></dl>
    <details><summary>Payload</summary><pre>${prettyJson(a.payload)}</pre><p class="muted">Digest <code>${a.payloadDigest}</code></p></details>
    ${a.reviewedState ? html`<details open class="reviewed-state"><summary>Content approved: ${a.reviewedState.subject} as it was at the request</summary><pre>${prettyJson(a.reviewedState.content)}</pre>
      <p class="muted">Digest <code>${a.reviewedState.digest}</code>. If ${a.reviewedState.subject} changes after the request, this approval cannot be used.</p></details>` : ''}
    <form method="post" action="${PANEL_BASE}/approvals/${a.id}/decide">${csrfField(s)}
      <label>Reason <textarea name="reason" rows="2" required maxlength="2000"></textarea></label>
      <div class="actions"><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="reject" class="danger">Reject</button></div>
    </form></section>`
}

export function approvalsView(s: PanelSession, pending: readonly Approval[], history: readonly Approval[]): Html {
  return html`<h1>Approvals</h1>
    ${pending.length === 0 ? html`<section><p class="muted">No approval is waiting for a decision.</p></section>` : pending.map((a) => pendingCard(s, a))}
    <section id="history"><h2>History</h2>${history.length === 0 ? html`<p class="muted">No decided approvals yet.</p>` : html`<table class="cards">
      <thead><tr><th>Requested</th><th>Action</th><th>Status</th><th>Approvals</th><th>Requester</th><th>Decisions</th></tr></thead><tbody>
      ${history.map((a) => html`<tr>${cell('Requested', when(a.createdAt))}${cell('Action', html`${a.actionType}<br><code>${a.id}</code>`)}${cell('Status', badge(a.status))}
        ${cell('Approvals', `${a.approvalsGiven} of ${a.requiredApprovals}`)}${cell('Requester', actor(a.requester))}${cell('Decisions', decisions(a))}</tr>`)}
    </tbody></table>`}</section>`
}

export function auditView(records: readonly AuditRecord[], v: AuditVerification, nav: { older: number | null; newer: number | null }): Html {
  const status = v.ok ? html`<p class="ok" id="audit-verification">Chain verified: ${plural(v.checked, 'record', 'records')}, each linked to the one before and matching its hash.</p>`
    : html`<p class="fail" id="audit-verification">Chain broken at record ${v.brokenAt?.id ?? '?'}: ${v.brokenAt?.problem ?? ''}</p>`
  const link = (from: number | null, text: string) => (from === null ? '' : html`<a href="${PANEL_BASE}/audit?from=${from}">${text}</a>`)
  return html`<h1>Audit</h1><section>${status}<div class="actions">${link(nav.older, '← Older')}${link(nav.newer, 'Newer →')}</div>
    ${records.length === 0 ? html`<p class="muted">No audit records.</p>` : html`<table class="cards">
    <thead><tr><th>#</th><th>At</th><th>Category</th><th>Action</th><th>Outcome</th><th>Actor</th><th>Entity</th><th>Summary</th></tr></thead><tbody>
    ${records.map((r) => html`<tr>${cell('#', r.id)}${cell('At', when(r.at))}${cell('Category', r.category)}${cell('Action', r.action)}${cell('Outcome', badge(r.outcome))}${cell('Actor', actor(r.actor))}
      ${cell('Entity', r.entity ? `${r.entity.type} ${r.entity.id}` : '—')}${cell('Summary', html`${r.summary}<details><summary>details</summary><pre>${prettyJson({ requestId: r.requestId, metadata: r.metadata, prevHash: r.prevHash, hash: r.hash })}</pre></details>`)}</tr>`)}
    </tbody></table>`}</section>`
}
