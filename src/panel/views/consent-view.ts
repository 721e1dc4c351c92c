// The consent page of sign-in for agents: who is asking (the client's name, where it sends
// the browser back, its metadata document, when Gatehouse first saw it), what for (the
// requested scopes in words, grouped as on the credential form; those no grant may carry are
// listed apart), and the operator's answer: a subset of the scopes with optional boundaries,
// IP allowlist and expiry, or a refusal. A grant becomes a managed credential.
import { html, when, type Html } from '../html.js'
import { csrfField, PANEL_BASE } from '../layout.js'
import type { PanelSession } from '../panel-sessions.js'
import type { ConsentRequest } from '../../oauth/oauth-service.js'
import type { BoundaryAxis } from '../../resources/boundary-axes.js'
import { errorSummary, fieldError, invalidAttrs, type FieldErrors } from '../field-errors.js'
import { GROUP_TITLES } from './account-views.js'

export interface ConsentFormValues {
  readonly scopes: readonly string[]
  readonly expiresIn: string
  readonly ipAllowlist: string
  readonly boundaries: Readonly<Record<string, string>>
}

export const consentFields = (axes: readonly BoundaryAxis[]): Readonly<Record<string, string>> => ({
  scopes: 'Scopes', expiresIn: 'Expires in', ipAllowlist: 'IP allowlist', ...Object.fromEntries(axes.map((a) => [a.name, a.label])),
})

const host = (url: string) => { try { return new URL(url).host } catch { return url } }

export function consentView(s: PanelSession, r: ConsentRequest, axes: readonly BoundaryAxis[], v: ConsentFormValues, errors: FieldErrors = new Map()): Html {
  const c = r.client
  const groups = [...new Set(r.grantable.map((x) => x.group))]
  const fields = consentFields(axes)
  const input = (name: string, value: string, placeholder: string) =>
    html`<label id="field-${name}">${fields[name]} <input type="text" name="${name}" value="${value}" placeholder="${placeholder}"${invalidAttrs(errors, name)}></label>${fieldError(errors, name)}`
  const previous = r.previous
  return html`<h1>Allow ${c.clientName ?? host(c.clientId)} to use Gatehouse?</h1>${errorSummary(errors, fields)}
    <section class="consent-client">${c.logoUri ? html`<img src="${c.logoUri}" alt="" width="48" height="48">` : ''}
      <dl class="kv"><dt>Application</dt><dd>${c.clientName ?? html`<span class="muted">no name given</span>`}</dd>
      <dt>Sends you back to</dt><dd><strong>${host(c.redirectUri)}</strong> <span class="muted"><code>${c.redirectUri}</code></span></dd>
      <dt>Identified by</dt><dd>${c.kind === 'metadata_document' ? html`metadata document <code>${c.clientId}</code>` : html`registration <code>${c.clientId}</code>`}</dd>
      <dt>First seen</dt><dd>${when(c.firstSeenAt)}</dd>
      <dt>For</dt><dd><code>${r.resource}</code></dd></dl>
      ${previous ? html`<p class="muted">This application already holds credential <a href="${PANEL_BASE}/accounts/${previous.id}">${previous.label}</a> (${previous.status}); it now asks for more. What you grant here replaces what it had.</p>` : ''}
      <p class="muted">Granting creates a managed credential for this application, shown in Accounts, which you can pause, narrow or revoke at any time.</p></section>
    <form method="post" action="${PANEL_BASE}/oauth/consent/${r.uid}" novalidate>${csrfField(s)}
    <section id="field-scopes"><h2>Requested access</h2><p class="muted">Untick what it should not have.</p>${fieldError(errors, 'scopes')}
    ${groups.map((g) => html`<fieldset><legend>${GROUP_TITLES[g]}</legend><div class="grid">
      ${r.grantable.filter((x) => x.group === g).map((x) => html`<label class="check"><input type="checkbox" name="scopes" value="${x.scope}"${v.scopes.includes(x.scope) ? html` checked` : ''}><span><code>${x.scope}</code> <span class="muted">${x.description}</span></span></label>`)}
    </div></fieldset>`)}
    ${r.grantable.length === 0 ? html`<p>None of the requested scopes can be granted to an application signing in.</p>` : ''}
    ${r.unavailable.length > 0 ? html`<p class="muted">Also asked for, not grantable here: ${r.unavailable.map((x) => html`<code>${x}</code> `)}</p>` : ''}</section>
    <section><h2>Limits</h2>
      ${input('expiresIn', v.expiresIn, '30d, 12h or 90m; empty for no expiry')}
      <label id="field-ipAllowlist">IP allowlist <textarea name="ipAllowlist" rows="2" placeholder="CIDRs, comma or line separated; empty allows any address"${invalidAttrs(errors, 'ipAllowlist')}>${v.ipAllowlist}</textarea></label>${fieldError(errors, 'ipAllowlist')}
      ${axes.map((a) => input(a.name, v.boundaries[a.name] ?? '', a.example))}</section>
    <p class="actions"><button type="submit" name="decision" value="grant"${r.grantable.length === 0 ? html` disabled` : ''}>Grant access</button>
      <button type="submit" name="decision" value="refuse" class="danger">Refuse</button></p></form>`
}
