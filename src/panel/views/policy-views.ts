// The Policies screens (control plane on): the list with the built-in fallback, the create
// and edit form with errors next to their fields, and the simulator, which shows what
// executing an action as a given credential would do now, in words.
import { html, prettyJson, when, type Html } from '../html.js'
import { csrfField, PANEL_BASE } from '../layout.js'
import type { PanelSession } from '../panel-sessions.js'
import type { Policy } from '../../control/policy.js'
import type { LimitResult } from '../../control/actions/control-action.js'
import { RISK_LEVELS } from '../../control/policy.js'
import type { simulationView } from '../../control/simulation-view.js'
import type { CredentialRecord } from '../../auth/credentials.js'
import { POLICY_FIELDS, type PolicyFormValues } from '../policy-form.js'
import { errorSummary, fieldError, invalidAttrs, type FieldErrors } from '../field-errors.js'
import { badge, cell } from './format.js'

export type Simulation = ReturnType<typeof simulationView>

const editHref = (handle: string) => `${PANEL_BASE}/policies/${encodeURIComponent(handle)}/edit`

function approvalText(p: Policy): string {
  if (!p.requiresApproval) return 'not required'
  return p.requiredApprovals === null ? 'by risk (2 for high and critical)' : `${p.requiredApprovals} approval${p.requiredApprovals === 1 ? '' : 's'}`
}

/** A policy's limits in words (`price change ≤ 10%; no negative stock`), or — when it sets none. */
export function limitsText(p: Policy): string {
  const l = p.limits
  const parts = [
    l.maxPriceChangePercent !== undefined ? `price change ≤ ${l.maxPriceChangePercent}%` : '',
    l.maxRefundAmount !== undefined ? `refund ≤ ${l.maxRefundAmount}` : '',
    l.maxStockAdjustment !== undefined ? `stock adjustment ≤ ${l.maxStockAdjustment}` : '',
    l.allowNegativeStock !== undefined ? (l.allowNegativeStock ? 'negative stock allowed' : 'no negative stock') : '',
  ].filter(Boolean)
  return parts.length === 0 ? '—' : parts.join('; ')
}

/**
 * Limits checked for one payload: each with its largest allowed value (the policy's, or the
 * action's own rule such as what is left to refund) beside the payload's value. The simulator
 * and an approval's page show the same table.
 */
export function limitsTable(limits: readonly Omit<LimitResult, 'param'>[]): Html {
  const largest = (l: Omit<LimitResult, 'param'>) => l.max ?? (l.source === 'policy' ? html`<span class="muted">not set by the policy</span>` : '—')
  return html`<table class="cards limits"><thead><tr><th>Limit</th><th>Set by</th><th>Largest allowed</th><th>This payload</th><th>Result</th></tr></thead><tbody>
    ${limits.map((l) => html`<tr>${cell('Limit', html`<code>${l.name}</code>`)}${cell('Set by', l.source === 'policy' ? 'policy' : 'the action\'s own rule')}${cell('Largest allowed', largest(l))}${cell('This payload', l.actual ?? '—')}
      ${cell('Result', l.ok ? badge('within', 'ok') : html`${badge('over', 'fail')} ${l.problem ?? ''}`)}</tr>`)}</tbody></table>`
}

export function policyListView(policies: readonly Policy[]): Html {
  return html`<h1>Policies</h1><section>
    <div class="actions"><a href="${PANEL_BASE}/policies/new">New policy</a><a href="${PANEL_BASE}/policies/simulate">Simulate an action</a></div>
    <p class="muted">The most specific matching pattern decides an action; a disabled match blocks it; when nothing matches, the built-in policy asks for two approvals.</p>
    <table class="cards"><thead><tr><th>Policy</th><th>Actions</th><th>Enabled</th><th>Approval</th><th>Risk</th><th>Extra scope</th><th>Limits</th><th>Updated</th></tr></thead><tbody>
    ${policies.map((p) => html`<tr>${cell('Policy', p.builtIn ? html`<strong>${p.displayName}</strong>` : html`<a href="${editHref(p.handle)}">${p.displayName}</a><br><code>${p.handle}</code>`)}
      ${cell('Actions', html`<code>${p.actionPattern}</code>`)}${cell('Enabled', p.enabled ? badge('enabled', 'ok') : badge('disabled — blocks', 'fail'))}
      ${cell('Approval', approvalText(p))}${cell('Risk', p.riskLevel ?? 'action default')}${cell('Extra scope', p.requiredScope ? html`<code>${p.requiredScope}</code>` : '—')}
      ${cell('Limits', limitsText(p))}${cell('Updated', p.builtIn ? 'built in' : html`${when(p.updatedAt)} <span class="muted">${p.updatedBy ?? ''}</span>`)}</tr>`)}
    </tbody></table></section>`
}

function options(values: readonly [string, string][], current: string): Html[] {
  return values.map(([v, text]) => html`<option value="${v}"${v === current ? html` selected` : ''}>${text}</option>`)
}

export function policyFormView(s: PanelSession, v: PolicyFormValues, opts: { editing: boolean; actions: readonly string[]; scopes: readonly string[] }, errors: FieldErrors = new Map()): Html {
  const field = (name: keyof PolicyFormValues, input: Html, hint = '') =>
    html`<label id="field-${name}">${POLICY_FIELDS[name]} ${input}</label>${hint ? html`<span class="hint">${hint}</span>` : ''}${fieldError(errors, name)}`
  const text = (name: keyof PolicyFormValues, extra: Html = html``) =>
    html`<input type="text" name="${name}" value="${v[name] as string}"${invalidAttrs(errors, name)}${extra}>`
  return html`<h1>${opts.editing ? `Edit policy ${v.handle}` : 'New policy'}</h1>${errorSummary(errors, POLICY_FIELDS)}
    <form method="post" action="${PANEL_BASE}/policies" novalidate>${csrfField(s)}${opts.editing ? html`<input type="hidden" name="editing" value="1">` : ''}
    <section>
      ${field('handle', text('handle', opts.editing ? html` readonly` : html` placeholder="refunds-large"`), opts.editing ? 'The handle names the policy and cannot change.' : 'Lower-case letters, digits, dots, dashes and underscores.')}
      ${field('displayName', text('displayName', html` placeholder="Large refunds need two people"`))}
      ${field('actionPattern', html`<input type="text" name="actionPattern" value="${v.actionPattern}" list="action-types"${invalidAttrs(errors, 'actionPattern')} placeholder="order.refund or variant.*">
        <datalist id="action-types">${opts.actions.map((a) => html`<option value="${a}"></option>`)}</datalist>`, `* matches any run of characters. Actions: ${opts.actions.join(', ')}.`)}
      <label class="check"><input type="checkbox" name="enabled"${v.enabled ? html` checked` : ''}> Enabled <span class="muted">(a disabled policy blocks the actions it matches)</span></label>
      <label class="check"><input type="checkbox" name="requiresApproval"${v.requiresApproval ? html` checked` : ''}> Requires approval</label>
      ${field('riskLevel', html`<select name="riskLevel"${invalidAttrs(errors, 'riskLevel')}>${options([['', 'the action\'s default'], ...RISK_LEVELS.map((r): [string, string] => [r, r])], v.riskLevel)}</select>`)}
      ${field('requiredApprovals', html`<select name="requiredApprovals"${invalidAttrs(errors, 'requiredApprovals')}>${options([['', 'by risk (2 for high and critical, else 1)'], ['1', '1'], ['2', '2 (two different people)']], v.requiredApprovals)}</select>`)}
      ${field('requiredScope', html`<input type="text" name="requiredScope" value="${v.requiredScope}" list="scopes"${invalidAttrs(errors, 'requiredScope')} placeholder="none">
        <datalist id="scopes">${opts.scopes.map((x) => html`<option value="${x}"></option>`)}</datalist>`, 'A scope the executing credential must hold besides control:actions:execute.')}
      ${field('approvalTtlMinutes', text('approvalTtlMinutes', html` inputmode="decimal"`), 'Minutes an approval stays usable.')}
    </section>
    <section><h2>Limits</h2><p class="muted">Empty means no limit of the policy's own.</p>
      ${field('maxPriceChangePercent', text('maxPriceChangePercent', html` inputmode="decimal" placeholder="20"`), 'variant.setPrice, in percent of the current price.')}
      ${field('maxRefundAmount', text('maxRefundAmount', html` inputmode="decimal" placeholder="500"`), 'order.refund, per refund.')}
      ${field('maxStockAdjustment', text('maxStockAdjustment', html` inputmode="numeric" placeholder="100"`), 'variant.adjustStock, largest change either way.')}
      ${field('allowNegativeStock', html`<select name="allowNegativeStock">${options([['', 'the action\'s rule'], ['yes', 'allowed (backorders)'], ['no', 'not allowed']], v.allowNegativeStock)}</select>`)}
    </section>
    <p class="actions"><button type="submit">${opts.editing ? 'Save policy' : 'Create policy'}</button><a href="${PANEL_BASE}/policies">Cancel</a></p></form>`
}

export interface SimulatorValues {
  readonly actionType: string
  readonly credentialId: string
  readonly payload: string
  readonly approvalId: string
}

export const SIMULATOR_FIELDS: Readonly<Record<string, string>> = { actionType: 'Action', credentialId: 'Credential', payload: 'Payload', approvalId: 'Approval id' }

const DECISIONS: Record<Simulation['decision'], { text: string; tone: string }> = {
  execute: { text: 'Would execute now', tone: 'ok' },
  blocked: { text: 'Would be blocked', tone: 'warn' },
  invalid: { text: 'Would be refused: invalid payload (400)', tone: 'fail' },
  forbidden: { text: 'Would be refused: forbidden (403)', tone: 'fail' },
}

const yesNo = (v: boolean | null) => (v === null ? '—' : v ? 'yes' : 'no')

function simulationResult(r: Simulation, credential: string): Html {
  const d = DECISIONS[r.decision]
  const p = r.policy
  return html`<section id="simulation"><h2>Result: ${badge(d.text, d.tone)}</h2>
    <p>Executing <code>${r.actionType}</code> as <strong>${credential}</strong>${r.target ? html` on ${r.target.type} ${r.target.id}` : ''}.</p>
    ${r.reasons.length > 0 ? html`<h3>Why</h3><ul class="reasons">${r.reasons.map((x) => html`<li>${x}</li>`)}</ul>` : ''}
    <dl class="kv">
      <dt>Deciding policy</dt><dd>${p.builtIn ? html`built-in default` : html`<a href="${editHref(p.handle)}">${p.handle}</a>`} (<code>${p.actionPattern}</code>)${p.enabled ? '' : html` ${badge('disabled', 'fail')}`}</dd>
      <dt>Risk</dt><dd>${p.riskLevel}</dd>
      <dt>Approval</dt><dd>${r.approval.required ? `required: ${r.approval.approvalsRequired} approval${r.approval.approvalsRequired === 1 ? '' : 's'}` : 'not required'}${r.approval.approvalId ? html`; approval <code>${r.approval.approvalId}</code> ${r.approval.status ?? 'not found'}, ${r.approval.approvalsGiven} given, payload matches: ${yesNo(r.approval.payloadMatches)}, usable: ${yesNo(r.approval.usable)}` : ''}</dd>
      <dt>Missing scopes</dt><dd>${r.missingScopes.length === 0 ? 'none' : r.missingScopes.map((x) => html`<code>${x}</code> `)}</dd>
      <dt>Boundaries</dt><dd>${!r.boundaries.bounded ? 'none on this credential' : r.boundaries.allowed ? 'inside them' : html`<span class="fail">${r.boundaries.problem ?? 'outside them'}</span>`}</dd>
    </dl>
    ${r.payloadErrors.length > 0 ? html`<h3>Payload problems</h3><ul>${r.payloadErrors.map((e) => html`<li><code>${e.param}</code>: ${e.problem}</li>`)}</ul>` : ''}
    ${r.limits.length > 0 ? html`<h3>Limits</h3>${limitsTable(r.limits)}` : ''}
    <details><summary>The answer as the API gives it</summary><pre>${prettyJson(r)}</pre></details></section>`
}

export function simulatorView(s: PanelSession, v: SimulatorValues, opts: { actions: readonly string[]; credentials: readonly CredentialRecord[] },
  errors: FieldErrors = new Map(), result: Simulation | null = null): Html {
  const credential = opts.credentials.find((c) => c.id === v.credentialId)
  return html`<h1>Simulate an action</h1><p class="muted">What executing an action would do now, as the chosen credential: the deciding policy, approvals, scopes, limits and boundaries. Nothing is written.</p>
    ${errorSummary(errors, SIMULATOR_FIELDS)}
    <form method="post" action="${PANEL_BASE}/policies/simulate" novalidate>${csrfField(s)}<section>
      <label id="field-actionType">Action <select name="actionType"${invalidAttrs(errors, 'actionType')}>${options(opts.actions.map((a): [string, string] => [a, a]), v.actionType)}</select></label>${fieldError(errors, 'actionType')}
      <label id="field-credentialId">Credential <select name="credentialId"${invalidAttrs(errors, 'credentialId')}>${options([['', 'choose one'], ...opts.credentials.map((c): [string, string] => [c.id, `${c.label} (${c.id})`])], v.credentialId)}</select></label>${fieldError(errors, 'credentialId')}
      <label id="field-payload">Payload (JSON) <textarea name="payload" rows="6" spellcheck="false"${invalidAttrs(errors, 'payload')} placeholder='{"variantId": 3, "price": 19.5}'>${v.payload}</textarea></label>${fieldError(errors, 'payload')}
      <label id="field-approvalId">Approval id <input type="text" name="approvalId" value="${v.approvalId}" placeholder="optional: apr_…"${invalidAttrs(errors, 'approvalId')}></label>${fieldError(errors, 'approvalId')}
      <p class="actions"><button type="submit">Simulate</button><a href="${PANEL_BASE}/policies">Policies</a></p></section></form>
    ${result ? simulationResult(result, credential ? `${credential.label} (${credential.id})` : v.credentialId) : ''}`
}
