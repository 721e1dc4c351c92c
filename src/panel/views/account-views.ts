// The Accounts screens: the credential list, the create form (scopes grouped by purpose),
// a credential's detail with its lifecycle actions, the confirmation page, and the page
// that shows a new token: the only place a token ever appears.
import { html, when, type Html } from '../html.js'
import { csrfField, PANEL_BASE, postButton } from '../layout.js'
import type { PanelSession } from '../panel-sessions.js'
import type { CredentialRecord } from '../../auth/credentials.js'
import type { ScopeInfo } from '../../auth/scopes.js'
import { accountFields, INTEREST_ACTIONS, type AccountFormValues } from '../account-form.js'
import { describeBoundary, type BoundaryAxis } from '../../resources/boundary-axes.js'
import { errorSummary, fieldError, invalidAttrs, type FieldErrors } from '../field-errors.js'
import { cell } from './format.js'
import type { GrantLink } from '../../oauth/oauth-grants.js'

export const GROUP_TITLES: Record<ScopeInfo['group'], string> = {
  contract: 'Contract and identity', operations: 'Operations and observability', content: 'Content', commerce: 'Commerce',
  people: 'People (personal data)', integration: 'Integration, sync and jobs', webhooks: 'Webhook operations', control: 'Control plane (experimental)',
  providers: 'External providers',
}

const status = (c: CredentialRecord) => {
  const expired = c.expiresAt !== null && Date.parse(c.expiresAt) <= Date.now()
  return html`<span class="badge ${c.status}">${c.status}</span>${expired ? html` <span class="badge fail">expired</span>` : ''}`
}

export function accountListView(list: readonly CredentialRecord[]): Html {
  return html`<h1>Accounts</h1><section><div class="actions"><a href="${PANEL_BASE}/accounts/new">Create credential</a></div>
    <table class="cards"><thead><tr><th>Label</th><th>Id</th><th>Status</th><th>Scopes</th><th>Expires</th><th>Last used</th></tr></thead><tbody>
    ${list.map((c) => html`<tr>${cell('Label', html`<a href="${PANEL_BASE}/accounts/${c.id}">${c.label}</a>${c.source !== 'managed' ? html` <span class="muted">(${c.source})</span>` : ''}`)}
      ${cell('Id', html`<code>${c.id}</code>`)}${cell('Status', status(c))}${cell('Scopes', html`${c.scopes.length} <span class="muted">${c.scopes.slice(0, 4).join(', ')}${c.scopes.length > 4 ? ', …' : ''}</span>`)}
      ${cell('Expires', when(c.expiresAt))}${cell('Last used', when(c.lastUsedAt))}</tr>`)}
    </tbody></table>${list.length === 0 ? html`<p class="muted">No credentials yet.</p>` : ''}</section>`
}

/** The registry's words the form is made of: interest rows and boundary fields. */
export interface AccountVocabulary {
  readonly eventTypes: readonly string[]
  readonly boundaryAxes: readonly BoundaryAxis[]
}

export function accountFormView(s: PanelSession, scopes: readonly ScopeInfo[], vocab: AccountVocabulary, v: AccountFormValues, errors: FieldErrors = new Map()): Html {
  const groups = [...new Set(scopes.map((x) => x.group))]
  const checked = (on: boolean) => (on ? html` checked` : '')
  const fields = accountFields(vocab.boundaryAxes)
  const input = (name: string, value: string, placeholder: string, extra: Html = html``) =>
    html`<label id="field-${name}">${fields[name]} <input type="text" name="${name}" value="${value}" placeholder="${placeholder}"${invalidAttrs(errors, name)}${extra}></label>${fieldError(errors, name)}`
  const text = (name: 'label' | 'expiresIn', placeholder: string, extra: Html = html``) => input(name, v[name], placeholder, extra)
  return html`<h1>Create credential</h1>${errorSummary(errors, fields)}
    <form method="post" action="${PANEL_BASE}/accounts" novalidate>${csrfField(s)}
    <section>${text('label', 'What uses it, such as “Nightly catalog sync”', html` maxlength="200"`)}
      ${text('expiresIn', '30d, 12h or 90m; empty for no expiry')}
      <label id="field-ipAllowlist">IP allowlist <textarea name="ipAllowlist" rows="2" placeholder="CIDRs, comma or line separated; empty allows any address"${invalidAttrs(errors, 'ipAllowlist')}>${v.ipAllowlist}</textarea></label>${fieldError(errors, 'ipAllowlist')}</section>
    <section id="field-scopes"><h2>Scopes</h2><p class="muted">Grant the fewest the client needs.</p>${fieldError(errors, 'scopes')}
    ${groups.map((g) => html`<fieldset><legend>${GROUP_TITLES[g]}</legend><div class="grid">
      ${scopes.filter((x) => x.group === g).map((x) => html`<label class="check"><input type="checkbox" name="scopes" value="${x.scope}"${checked(v.scopes.includes(x.scope))}><span><code>${x.scope}</code> <span class="muted">${x.description}</span></span></label>`)}
    </div></fieldset>`)}</section>
    <section id="field-interests"><h2>Webhook interests</h2><p class="muted">When any credential has interests, delivery is targeted: only matching events are sent.</p>${fieldError(errors, 'interests')}
      <table><thead><tr><th>Resource</th>${INTEREST_ACTIONS.map((a) => html`<th>${a}</th>`)}</tr></thead><tbody>
      ${vocab.eventTypes.map((t) => html`<tr><td>${t}</td>${INTEREST_ACTIONS.map((a) => html`<td><input type="checkbox" name="interests" value="${t}:${a}" aria-label="${t} ${a}"${checked(v.interests.includes(`${t}:${a}`))}></td>`)}</tr>`)}
      </tbody></table></section>
    <section><h2>Boundaries</h2><p class="muted">Limit the credential to these records; empty means no boundary.</p>
      ${vocab.boundaryAxes.map((a) => input(a.name, v.boundaries[a.name] ?? '', a.example))}</section>
    <p class="actions"><button type="submit">Create credential</button> <a href="${PANEL_BASE}/accounts">Cancel</a></p></form>`
}

export function tokenView(c: CredentialRecord, token: string, verb: 'created' | 'rotated'): Html {
  return html`<h1>Credential ${verb}</h1><section>
    <p><strong>Copy this token now.</strong> It is shown only this once; Gatehouse keeps only its digest and cannot show it again.</p>
    <p class="token" id="new-token"><code>${token}</code></p>
    <dl class="kv"><dt>Label</dt><dd>${c.label}</dd><dt>Id</dt><dd><code>${c.id}</code></dd><dt>Scopes</dt><dd>${c.scopes.join(', ')}</dd><dt>Expires</dt><dd>${when(c.expiresAt)}</dd></dl>
    <p><a href="${PANEL_BASE}/accounts/${c.id}">Done</a></p></section>`
}

/** The token page once its token was shown (a reload, or a visit without a new token). */
export function tokenGoneView(): Html {
  return html`<h1>Token not shown again</h1><section>
    <p>A new token is shown once, on the page right after it was made; it is not shown again, and
    reloading that page does not make another. If it was not copied, rotate the credential for a new one.</p>
    <p><a href="${PANEL_BASE}/accounts">Accounts</a></p></section>`
}

/** `oauth`: the grants an OAuth consent linked to this credential (it was created by one). */
export function accountDetailView(s: PanelSession, c: CredentialRecord, axes: readonly BoundaryAxis[], oauth: readonly GrantLink[] = []): Html {
  const base = `${PANEL_BASE}/accounts/${c.id}`
  const managed = c.source === 'managed'
  const actions = !managed ? html`<p class="muted">This credential is kept in configuration (${c.source}); change it there.</p>`
    : c.status === 'revoked' ? html`<div class="actions"><a href="${base}/confirm/delete">Delete…</a></div>`
      : html`<div class="actions"><a href="${base}/confirm/rotate">Rotate token…</a>
        ${c.status === 'active' ? postButton(s, `${base}/pause`, 'Pause') : postButton(s, `${base}/resume`, 'Resume')}
        <a href="${base}/confirm/revoke">Revoke…</a><a href="${base}/confirm/delete">Delete…</a></div>`
  const b = c.boundaries
  return html`<h1>${c.label}</h1><section><dl class="kv">
    <dt>Id</dt><dd><code>${c.id}</code></dd><dt>Status</dt><dd>${status(c)}</dd>
    ${oauth.length > 0 ? html`<dt>Granted through OAuth</dt><dd id="oauth-grant">to client <code>${oauth[0].clientId}</code> by ${oauth[0].grantedBy}, ${when(oauth[0].updatedAt)}; revoking ends its access and refresh tokens</dd>` : ''}<dt>Token</dt><dd><code>${c.tokenHint}</code> <span class="muted">(hint only)</span></dd>
    <dt>Scopes</dt><dd>${c.scopes.map((x) => html`<code>${x}</code> `)}</dd>
    <dt>Expires</dt><dd>${when(c.expiresAt)}</dd><dt>IP allowlist</dt><dd>${c.ipAllowlist.length > 0 ? c.ipAllowlist.join(', ') : 'any address'}</dd>
    <dt>Webhook interests</dt><dd>${c.webhookInterests.length > 0 ? c.webhookInterests.map((w) => `${w.resourceType}: ${w.actions.join(', ')}`).join('; ') : 'none'}</dd>
    <dt>Boundaries</dt><dd>${b ? describeBoundary(axes, b) : 'none'}</dd>
    <dt>Created</dt><dd>${when(c.createdAt)}</dd><dt>Rotated</dt><dd>${when(c.rotatedAt)}</dd><dt>Last used</dt><dd>${when(c.lastUsedAt)}</dd>
  </dl>${actions}</section><p><a href="${PANEL_BASE}/accounts">All accounts</a></p>`
}

export const CONFIRM_TEXT = {
  rotate: { button: 'Rotate token', text: 'A new token replaces the current one at once; the client must be given the new token.' },
  revoke: { button: 'Revoke', text: 'The credential stops working for good; it cannot be resumed.' },
  delete: { button: 'Delete', text: 'The credential and its record are removed; this cannot be undone.' },
} as const

export function confirmView(s: PanelSession, c: CredentialRecord, action: keyof typeof CONFIRM_TEXT): Html {
  const t = CONFIRM_TEXT[action]
  return html`<h1>${t.button}: ${c.label}</h1><section><p>${t.text}</p>
    <div class="actions">${postButton(s, `${PANEL_BASE}/accounts/${c.id}/${action}`, t.button, { danger: action !== 'rotate' })}<a href="${PANEL_BASE}/accounts/${c.id}">Cancel</a></div></section>`
}
