// The Integrations screens: every credential with its last 24 hours at a glance, and one
// integration's page: traffic chart, refusals, last use, sync checkpoints with live lag,
// webhook interests with the deliveries routed to it, and lifecycle findings.
import { html, plural, when, type Html } from '../html.js'
import { PANEL_BASE } from '../layout.js'
import type { IntegrationOverview, IntegrationRow } from '../../operations/integration-overview.js'
import type { Finding } from '../../ops/lifecycle.js'
import { badge, cell, duration, withCode } from './format.js'
import { trafficCharts } from './traffic-charts.js'

const FINDINGS: Record<Finding['code'], string> = {
  revoked: 'Revoked', paused: 'Paused', expired: 'Expired', expiring_soon: 'Expires within 14 days', never_used: 'Never used',
  stale: 'Not used for 30 days or more', rotation_due: 'Token rotation is due', legacy_token: 'The legacy shared token', privileged: 'Holds privileged scopes',
}

const href = (id: string) => `${PANEL_BASE}/integrations/${encodeURIComponent(id)}`
const deliveriesOf = (id: string, since: string) => `${PANEL_BASE}/deliveries?${new URLSearchParams({ credential: id, since }).toString()}`

function errorsText(t: IntegrationRow['traffic']): Html | string {
  const n = t.clientErrors + t.serverErrors
  if (n === 0) return '0'
  return html`${n.toLocaleString('en')} <span class="muted">(${t.serverErrors} 5xx)</span>`
}

export function integrationListView(rows: readonly IntegrationRow[], onlyAtRisk: boolean): Html {
  const shown = onlyAtRisk ? rows.filter((r) => r.lifecycle.risk === 'high' || r.lifecycle.risk === 'critical') : rows
  return html`<h1>Integrations</h1><section>
    <p class="muted">Each credential is an integration. Traffic covers the last 24 hours, from every Gatehouse process.</p>
    ${onlyAtRisk ? html`<p>Showing ${plural(shown.length, 'credential', 'credentials')} at high or critical risk. <a href="${PANEL_BASE}/integrations">Show all</a></p>` : ''}
    ${shown.length === 0 ? html`<p class="muted">${onlyAtRisk ? 'No credential is at high or critical risk.' : 'No credentials yet.'} <a href="${PANEL_BASE}/accounts/new">Create a credential</a></p>` : html`
    <table class="cards"><thead><tr><th>Integration</th><th>Status</th><th>Requests</th><th>Errors</th><th>Scope denials</th><th>Rate limited</th><th>Last used</th><th>Risk</th></tr></thead><tbody>
    ${shown.map((r) => html`<tr>${cell('Integration', html`<a href="${href(r.credential.id)}">${r.credential.label}</a>${r.credential.source !== 'managed' ? html` <span class="muted">(${r.credential.source})</span>` : ''}`)}
      ${cell('Status', badge(r.credential.status))}${cell('Requests', r.traffic.requests.toLocaleString('en'))}${cell('Errors', errorsText(r.traffic))}
      ${cell('Scope denials', r.traffic.scopeDenials)}${cell('Rate limited', r.traffic.rateLimited)}${cell('Last used', when(r.credential.lastUsedAt))}
      ${cell('Risk', badge(r.lifecycle.risk, `risk-${r.lifecycle.risk}`))}</tr>`)}
    </tbody></table>`}</section>`
}

function lagSection(o: IntegrationOverview): Html {
  return html`<section id="sync"><h2>Sync checkpoints</h2>${o.checkpoints.length === 0
    ? html`<p class="muted">No checkpoints. An integration that follows <code>/changes</code> records its position with <code>POST /gatehouse/v1/sync-state/checkpoint</code>.</p>`
    : html`<table class="cards"><thead><tr><th>Resource type</th><th>Behind by</th><th>Lag</th><th>Position</th><th>Checkpoint written</th></tr></thead><tbody>
      ${o.checkpoints.map((c) => html`<tr>${cell('Resource type', html`<code>${c.resourceType}</code>`)}
        ${cell('Behind by', c.pendingChanges === 0 ? html`<span class="ok">caught up</span>` : plural(c.pendingChanges, 'change', 'changes'))}
        ${cell('Lag', c.cursorExpired ? html`<span class="fail">cursor expired: restart from a checkpoint</span>` : duration(c.lagSeconds))}
        ${cell('Position', html`${when(c.positionAt)} <span class="muted">(by ${c.positionBy})</span>`)}${cell('Checkpoint written', when(c.checkpointAt))}</tr>`)}
      </tbody></table>`}</section>`
}

function webhookSection(o: IntegrationOverview): Html {
  const c = o.credential
  const m = o.deliveriesMatched
  return html`<section id="webhooks"><h2>Webhooks</h2><dl class="kv">
    <dt>Interests</dt><dd>${c.webhookInterests.length === 0 ? 'none (in firehose mode every event is sent, whoever it is for)' : c.webhookInterests.map((w) => `${w.resourceType}: ${w.actions.join(', ')}`).join('; ')}</dd>
    <dt>Deliveries routed to it</dt><dd><a href="${deliveriesOf(c.id, '24h')}">${plural(m.last24Hours, 'delivery', 'deliveries')} in the last 24 hours</a>,
      <a href="${deliveriesOf(c.id, '7d')}">${plural(m.last7Days, 'delivery', 'deliveries')} in the last 7 days</a></dd>
  </dl></section>`
}

export function integrationView(o: IntegrationOverview): Html {
  const c = o.credential
  const t = o.traffic
  const l = o.lifecycle
  return html`<h1>${c.label}</h1>
    <section id="summary"><dl class="kv">
      <dt>Credential</dt><dd><a href="${PANEL_BASE}/accounts/${encodeURIComponent(c.id)}"><code>${c.id}</code></a> ${badge(c.status)}${c.source !== 'managed' ? html` <span class="muted">(${c.source})</span>` : ''}</dd>
      <dt>Last used</dt><dd>${when(c.lastUsedAt)}</dd>
      <dt>Requests, 24 hours</dt><dd>${t.requests.toLocaleString('en')}${t.p95Ms === null ? '' : html` <span class="muted">(p95 within ${t.p95Ms} ms)</span>`}</dd>
      <dt>Errors, 24 hours</dt><dd>${plural(t.clientErrors, '4xx answer', '4xx answers')}, ${plural(t.serverErrors, '5xx answer', '5xx answers')}</dd>
      <dt>Scope denials</dt><dd id="scope-denials">${t.scopeDenials}</dd>
      <dt>Rate-limit refusals</dt><dd id="rate-limited">${t.rateLimited}</dd>
    </dl></section>
    <section id="traffic"><h2>Requests and errors, last 24 hours</h2>${trafficCharts(o.series, ['requests', 'errors'])}</section>
    ${lagSection(o)}${webhookSection(o)}
    <section id="lifecycle"><h2>Lifecycle ${badge(`${l.risk} risk`, `risk-${l.risk}`)}</h2>
      ${l.findings.length === 0 ? html`<p class="ok">No findings.</p>` : html`<ul>${l.findings.map((f) => html`<li>${FINDINGS[f]}</li>`)}</ul>`}
      <p><strong>Recommended:</strong> ${withCode(l.recommendedAction)}</p></section>
    <p><a href="${PANEL_BASE}/integrations">All integrations</a></p>`
}
