// The Status screen: readiness, security posture, webhook settings, the probe and its
// ledger, the dev test sink and the dead-letter queue. Only hosts, counts and flags are
// shown: never the webhook secret, a URL path or a token.
import { html, plural, prettyJson, when, type Html } from '../html.js'
import { PANEL_BASE, postButton } from '../layout.js'
import type { PanelSession } from '../panel-sessions.js'
import type { Readiness, ReadinessCheck } from '../../operations/readiness.js'
import type { LifecycleReport } from '../../ops/lifecycle.js'
import type { CredentialRecord } from '../../auth/credentials.js'
import type { AdminTokenRecord } from '../../auth/admin-tokens.js'
import type { WebhookStatus } from '../../webhooks/webhook-service.js'
import type { ProbeLedger } from '../../webhooks/probe.js'
import type { SinkView } from '../../webhooks/sink-captures.js'
import type { DeadLetter } from '../../webhooks/dead-letters.js'
import type { ChartRange, Series } from '../../ops/metric-buckets.js'
import { rangeLinks, trafficCharts } from './traffic-charts.js'
import { cell } from './format.js'

export interface StatusData {
  readonly readiness: Readiness
  readonly credentials: readonly CredentialRecord[]
  readonly lifecycle: LifecycleReport
  readonly posture: { readonly legacyToken: boolean; readonly adminToken: boolean; readonly rateLimitPerMinute: number; readonly devMode: boolean; readonly writesExperimental: boolean }
  /** Managed admin API tokens (`gta_…`) that still work. */
  readonly adminTokens: readonly AdminTokenRecord[]
  readonly webhooks: WebhookStatus
  readonly webhookCheck: { readonly status: string; readonly message: string } | undefined
  readonly secretSet: boolean
  readonly ledger: ProbeLedger
  readonly sink: SinkView | null
  readonly deadLetters: readonly DeadLetter[]
  readonly moreDeadLetters: boolean
  readonly traffic: Series
  readonly range: ChartRange
}

/** Readiness checks whose subject has a page of its own. */
const CHECK_PAGES: Readonly<Record<string, { href: string; text: string }>> = {
  deadLetters: { href: `${PANEL_BASE}/deliveries?status=failed`, text: 'Dead letters' },
  deliveryBacklog: { href: `${PANEL_BASE}/deliveries?status=queued`, text: 'Queued deliveries' },
  incidents: { href: `${PANEL_BASE}/incidents`, text: 'Incidents' },
  credentials: { href: `${PANEL_BASE}/accounts`, text: 'Accounts' },
}

const badge = (text: string) => html`<span class="badge ${text}">${text}</span>`

/** The overdue-workflows warning with each workflow named and linked to its page. */
function overdueWorkflows(c: ReadinessCheck): Html {
  const d = (c.details ?? {}) as { overdue?: number; graceSeconds?: number; workflows?: { id: string; name: string }[] }
  const listed = d.workflows ?? []
  const more = (d.overdue ?? listed.length) - listed.length
  return html`${plural(d.overdue ?? listed.length, 'workflow', 'workflows')} overdue (due for more than ${d.graceSeconds ?? '?'} s with no run started):
    ${listed.map((w, i) => html`${i > 0 ? ', ' : ''}<a href="${PANEL_BASE}/jobs/${w.id}">${w.name}</a>`)}${more > 0 ? html` and <a href="${PANEL_BASE}/jobs">${more} more</a>` : ''}`
}

function readinessSection(r: Readiness): Html {
  const link = (name: string, message: string) => {
    const target = CHECK_PAGES[name]
    return target ? html`<a href="${target.href}">${message}</a>` : message
  }
  const shown = (c: ReadinessCheck) => (c.status === 'ok' ? c.message : c.name === 'workflows' ? overdueWorkflows(c) : link(c.name, c.message))
  return html`<section id="readiness"><h2>Readiness ${badge(r.verdict)}</h2>
    <div class="scroll"><table><thead><tr><th>Check</th><th>Status</th><th>Message</th></tr></thead><tbody>
    ${r.checks.map((c) => html`<tr><td>${c.name}</td><td>${badge(c.status)}</td><td>${shown(c)}</td></tr>`)}
    </tbody></table></div><p class="muted">Checked ${when(r.checkedAt)}</p></section>`
}

function trafficSection(d: StatusData): Html {
  return html`<section id="traffic"><div class="section-head"><h2>Traffic</h2>${rangeLinks(`${PANEL_BASE}/status`, d.range)}</div>
    <p class="muted">Machine-API requests and webhook delivery attempts of every Gatehouse process on this database.</p>
    ${trafficCharts(d.traffic, ['requests', 'errors', 'latency', 'deliveries'])}</section>`
}

function atRisk(d: StatusData): Html | string {
  const n = d.lifecycle.summary.high + d.lifecycle.summary.critical
  return n === 0 ? 'none' : html`<a href="${PANEL_BASE}/integrations?risk=high">${plural(n, 'credential', 'credentials')}</a>`
}

/** The admin API's ways in: managed tokens (hint and label, never the token) and the configured one. */
function adminTokensText(d: StatusData): Html | string {
  const managed = d.adminTokens.map((t, i) => html`${i > 0 ? ', ' : ''}<code>${t.tokenHint}</code> ${t.label}`)
  const configured = d.posture.adminToken ? 'PLUGIN_GATEHOUSE_ADMIN_TOKEN is set' : ''
  if (managed.length === 0 && !configured) return 'none: the admin API cannot be used (create one with gatehouse admin token create)'
  return html`${managed.length > 0 ? html`${plural(managed.length, 'managed token', 'managed tokens')} active: ${managed}` : ''}${managed.length > 0 && configured ? '; ' : ''}${configured}`
}

function postureSection(d: StatusData): Html {
  const lc = d.lifecycle.credentials
  const count = (f: (c: (typeof lc)[number]) => boolean) => lc.filter(f).length
  const expiring = lc.filter((c) => c.findings.includes('expiring_soon'))
  const legacy = d.credentials.find((c) => c.source === 'legacy')
  const legacyText = !d.posture.legacyToken ? 'not configured' : legacy?.lastUsedAt ? `in use (last used ${when(legacy.lastUsedAt)})` : 'configured, not used since start'
  return html`<section id="posture"><h2>Security posture</h2><dl class="kv">
    <dt>Credentials</dt><dd><a href="${PANEL_BASE}/integrations">${lc.length} total</a>: ${count((c) => c.status === 'active' && !c.expired)} active, ${count((c) => c.paused)} paused, ${count((c) => c.revoked)} revoked, ${count((c) => c.expired)} expired</dd>
    <dt>Expiring soon</dt><dd>${expiring.length === 0 ? 'none' : expiring.map((c, i) => html`${i > 0 ? ', ' : ''}<a href="${PANEL_BASE}/accounts/${c.credentialId}">${c.label}</a> (${c.expiresInDays} d)`)}</dd>
    <dt>At high or critical risk</dt><dd>${atRisk(d)}</dd>
    <dt>Legacy token</dt><dd class="${d.posture.legacyToken ? 'warn' : ''}">${legacyText}</dd>
    <dt>Admin tokens</dt><dd id="admin-tokens">${adminTokensText(d)}</dd>
    <dt>Rate limit</dt><dd>${d.posture.rateLimitPerMinute === 0 ? html`<span class="warn">off</span>` : `${d.posture.rateLimitPerMinute} requests per minute per credential`}</dd>
    <dt>Development mode</dt><dd>${d.posture.devMode ? 'on' : 'off'}</dd>
    <dt>Experimental writes</dt><dd>${d.posture.writesExperimental ? 'on' : 'off'}</dd>
  </dl></section>`
}

function webhookSection(d: StatusData): Html {
  const w = d.webhooks
  return html`<section id="webhooks"><h2>Webhook settings ${d.webhookCheck ? badge(d.webhookCheck.status) : ''}</h2><dl class="kv">
    <dt>Delivery</dt><dd>${w.configured ? 'configured' : 'not configured'}${d.webhookCheck ? html` — ${d.webhookCheck.message}` : ''}</dd>
    <dt>Target</dt><dd>${w.target ?? '—'}</dd>
    <dt>Secret</dt><dd>${d.secretSet ? 'set (never shown)' : 'not set'}</dd>
    <dt>Timeout / attempts</dt><dd>${w.timeoutSeconds} s / ${w.maxAttempts}</dd>
    <dt>Routing mode</dt><dd>${w.routingMode}</dd>
    <dt>Queue</dt><dd><a href="${PANEL_BASE}/deliveries?status=queued">${w.queue.queued} queued</a>${w.queue.oldestQueuedAgeSeconds !== null ? ` (oldest ${Math.round(w.queue.oldestQueuedAgeSeconds)} s)` : ''},
      <a href="${PANEL_BASE}/deliveries?status=failed">${plural(w.queue.deadLetters, 'dead letter', 'dead letters')}</a>,
      <a href="${PANEL_BASE}/deliveries?status=delivered&amp;since=1h">${w.queue.deliveredLastHour} delivered in the last hour</a></dd>
    <dt>Workers</dt><dd>${plural(w.queue.workers.length, 'worker', 'workers')} (last heartbeat ${when(w.queue.lastHeartbeatAt)})</dd>
  </dl></section>`
}

function probeSection(s: PanelSession, d: StatusData): Html {
  const l = d.ledger
  const state = !d.webhooks.configured ? html`<p class="muted">The probe needs PLUGIN_GATEHOUSE_WEBHOOK_URL and PLUGIN_GATEHOUSE_WEBHOOK_SECRET.</p>`
    : l.nextProbeAt ? html`<p class="warn" id="probe-cooldown">Cooling down: the next probe is possible at ${when(l.nextProbeAt)} (one probe per ${l.cooldownSeconds / 60} minutes).</p>`
      : html`<p class="ok" id="probe-cooldown">Ready: a probe may run now.</p>`
  return html`<section id="probe"><h2>Webhook probe</h2>
    <p class="muted">Sends one synthetic signed webhook through the live URL and secret now. Success shows the URL is reachable, the secret matches and outbound delivery works; it does not show that change hooks, the queue or the receiver's own logic work.</p>
    ${state}<div class="actions">${postButton(s, `${PANEL_BASE}/status/probe`, 'Run probe', { disabled: !d.webhooks.configured || l.nextProbeAt !== null })}</div>
    <dl class="kv"><dt>Delivered / failed</dt><dd>${l.delivered} / ${l.failed}</dd><dt>Last success</dt><dd>${when(l.lastSuccessAt)}</dd><dt>Last failure</dt><dd>${when(l.lastFailureAt)}</dd></dl>
    ${l.recent.length === 0 ? html`<p class="muted">No probe has run yet.</p>` : html`<div class="scroll"><table><thead><tr><th>When</th><th>By</th><th>Result</th><th>Target</th><th>Payload</th></tr></thead><tbody>
    ${l.recent.map((p) => html`<tr><td>${when(p.triggeredAt)}</td><td>${p.triggeredBy}</td>
      <td>${badge(p.status)} ${p.statusCode ?? ''} ${p.error ?? ''} <span class="muted">${p.durationMs} ms</span></td><td>${p.targetHost}</td>
      <td><details><summary>${p.probeId}</summary><pre>${prettyJson(p.payload)}</pre></details></td></tr>`)}
    </tbody></table></div>`}</section>`
}

function sinkSection(s: PanelSession, v: SinkView): Html {
  return html`<section id="sink"><h2>Dev test sink</h2>
    <p class="muted">Development mode only. Captures deliveries sent to <code>${v.url}</code>; never route production delivery here.</p>
    <dl class="kv"><dt>Captured</dt><dd id="sink-captured">${v.capturedCount}</dd><dt>Valid signatures</dt><dd id="sink-valid">${v.validCount}</dd>
      <dt>Last captured</dt><dd>${when(v.lastCapturedAt)}</dd><dt>Routing mode</dt><dd>${v.routingMode ?? '—'} (changes now: ${v.currentRoutingMode})</dd>
      <dt>Matched credentials</dt><dd>${v.matchedCredentials.length === 0 ? '—' : v.matchedCredentials.map((m, i) => html`${i > 0 ? ', ' : ''}${m.label ?? m.id} <code>${m.id}</code>`)}</dd></dl>
    <div class="actions">${postButton(s, `${PANEL_BASE}/status/sink/send-test`, 'Send test webhook')}${postButton(s, `${PANEL_BASE}/status/sink/clear`, 'Clear captures', { danger: true })}</div>
    ${v.captures.length === 0 ? '' : html`<div class="scroll"><table><thead><tr><th>Received</th><th>Kind</th><th>Signature</th><th>Payload preview</th></tr></thead><tbody>
    ${v.captures.map((c) => html`<tr><td>${when(c.receivedAt)}</td><td>${c.kind ?? '—'}</td><td>${c.signatureValid && !c.problem ? badge('ok') : html`${badge('fail')} ${c.problem ?? ''}`}</td>
      <td><details><summary>${c.bodyBytes} bytes</summary><pre>${c.payloadPreview}</pre></details></td></tr>`)}
    </tbody></table></div>`}</section>`
}

function dlqSection(s: PanelSession, d: StatusData): Html {
  const failed = d.deadLetters.filter((x) => x.status === 'failed').length
  return html`<section id="dlq"><div class="section-head"><h2>Dead-letter queue</h2><a href="${PANEL_BASE}/deliveries?status=failed">All dead letters in the delivery log</a></div>
    ${d.deadLetters.length === 0 ? html`<p class="muted">Empty.</p>` : html`<div class="actions">${postButton(s, `${PANEL_BASE}/status/dlq/replay-all`, `Replay all failed (${failed})`, { disabled: failed === 0 })}</div>
    <table class="cards"><thead><tr><th>Id</th><th>Event</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Dead-lettered</th><th>Action</th></tr></thead><tbody>
    ${d.deadLetters.map((x) => html`<tr>${cell('Id', html`<a href="${PANEL_BASE}/deliveries/${x.id}">${x.id}</a>`)}
      ${cell('Event', x.kind === 'test' ? 'test' : `${x.resourceType ?? ''} ${x.resourceId ?? ''} ${x.action ?? ''}`)}${cell('Status', badge(x.status))}${cell('Attempts', x.attempts)}
      ${cell('Last answer', `${x.lastStatusCode ?? ''} ${x.lastError ?? ''}`)}${cell('Dead-lettered', when(x.deadLetteredAt))}
      ${cell('Action', x.status === 'failed' ? postButton(s, `${PANEL_BASE}/status/dlq/${x.id}/replay`, 'Replay', { ariaLabel: `Replay delivery ${x.id}` }) : html`<span class="muted">replayed ${when(x.replayedAt)}</span>`)}</tr>`)}
    </tbody></table>${d.moreDeadLetters ? html`<p class="muted">Showing the oldest ${d.deadLetters.length}; <a href="${PANEL_BASE}/deliveries?status=failed">the delivery log</a> has them all.</p>` : ''}`}</section>`
}

export function statusView(s: PanelSession, d: StatusData): Html {
  return html`<h1>Status</h1>${readinessSection(d.readiness)}${trafficSection(d)}${postureSection(d)}${webhookSection(d)}${probeSection(s, d)}${d.sink ? sinkSection(s, d.sink) : ''}${dlqSection(s, d)}`
}

export function deadLetterView(s: PanelSession, item: DeadLetter & { payload: unknown }): Html {
  return html`<h1>Dead letter ${item.id}</h1><section><dl class="kv">
    <dt>Delivery id</dt><dd><code>${item.deliveryId}</code></dd><dt>Event id</dt><dd><code>${item.eventId}</code></dd>
    <dt>Status</dt><dd>${badge(item.status)}</dd><dt>Attempts</dt><dd>${item.attempts}</dd>
    <dt>Last answer</dt><dd>${item.lastStatusCode ?? '—'} ${item.lastError ?? ''}</dd><dt>Routing</dt><dd>${item.routingMode} ${item.matchedCredentials.join(', ')}</dd>
    <dt>Created / dead-lettered</dt><dd>${when(item.createdAt)} / ${when(item.deadLetteredAt)}</dd><dt>Replays</dt><dd>${item.replayCount} (last ${when(item.replayedAt)})</dd></dl>
    <div class="actions">${item.status === 'failed' ? postButton(s, `${PANEL_BASE}/status/dlq/${item.id}/replay`, 'Replay') : ''}<a href="${PANEL_BASE}/status#dlq">Back to Status</a></div>
    <h2>Payload</h2><pre>${prettyJson(item.payload)}</pre></section>`
}
