// The Deliveries screens: the delivery log with its filters (each a query parameter, so
// every filtered view is a link; the dead-letter queue is status=failed), one delivery with
// every attempt (status, latency, headers sent, answer excerpt) and its payload, and the
// confirmation page of replay-by-filter.
import { html, plural, prettyJson, when, type Html } from '../html.js'
import { csrfField, PANEL_BASE, postButton } from '../layout.js'
import type { PanelSession } from '../panel-sessions.js'
import type { CredentialRecord } from '../../auth/credentials.js'
import { DELIVERY_STATUSES, FILTER_PARAMS, filterEventTypes, REPLAY_FILTER_LIMIT, type DeliveryDetail, type DeliverySummary } from '../../webhooks/delivery-log.js'
import { EXCERPT_BYTES } from '../../webhooks/transport.js'
import { badge, cell } from './format.js'

export type FilterValues = Readonly<Partial<Record<(typeof FILTER_PARAMS)[number], string>>>

const STATUS_WORDS: Record<string, string> = { queued: 'queued', delivered: 'delivered', failed: 'dead-lettered' }
const SINCE_PRESETS: readonly [string, string][] = [['', 'any time'], ['1h', 'last hour'], ['24h', 'last 24 hours'], ['7d', 'last 7 days']]

export const deliveriesHref = (f: FilterValues, extra: Record<string, string> = {}): string => {
  const q = new URLSearchParams({ ...Object.fromEntries(Object.entries(f).filter(([, v]) => v)), ...extra }).toString()
  return `${PANEL_BASE}/deliveries${q ? `?${q}` : ''}`
}

const statusBadge = (status: string) => badge(STATUS_WORDS[status] ?? status, status)
const eventOf = (d: DeliverySummary) => (d.kind === 'test' ? 'test' : d.eventType)
const resourceOf = (d: DeliverySummary) => (d.resourceType && d.resourceId !== null ? `${d.resourceType}:${d.resourceId}` : '—')
const lastAnswer = (d: { lastStatusCode: number | null; lastError: string | null }) =>
  d.lastStatusCode === null && d.lastError === null ? '—' : [d.lastStatusCode === null ? null : `HTTP ${d.lastStatusCode}`, d.lastError && d.lastError !== `HTTP ${d.lastStatusCode}` ? d.lastError : null].filter(Boolean).join(', ')

function select(name: string, label: string, current: string | undefined, options: readonly [string, string][]): Html {
  const known = options.some(([v]) => v === (current ?? ''))
  return html`<label>${label} <select name="${name}">${options.map(([v, text]) => html`<option value="${v}"${v === (current ?? '') ? html` selected` : ''}>${text}</option>`)}
    ${!known && current ? html`<option value="${current}" selected>${current}</option>` : ''}</select></label>`
}

function filterForm(f: FilterValues, eventTypes: readonly string[], credentials: readonly CredentialRecord[]): Html {
  return html`<form method="get" action="${PANEL_BASE}/deliveries" class="filters">
    ${select('status', 'Status', f.status, [['', 'any'], ...DELIVERY_STATUSES.map((s): [string, string] => [s, STATUS_WORDS[s]])])}
    ${select('eventType', 'Event', f.eventType, [['', 'any'], ...filterEventTypes(eventTypes).map((e): [string, string] => [e, e.includes('.') || e === 'test' ? e : `${e} (any action)`])])}
    <label>Resource <input type="text" name="resource" value="${f.resource ?? ''}" placeholder="product:12" maxlength="40"></label>
    ${select('credential', 'Credential', f.credential, [['', 'any'], ...credentials.map((c): [string, string] => [c.id, c.label])])}
    ${select('since', 'Created', f.since, SINCE_PRESETS)}
    <label>Before <input type="text" name="until" value="${f.until ?? ''}" placeholder="2025-01-31T12:00:00Z or 1h" maxlength="40"></label>
    <div class="actions"><button type="submit">Filter</button><a href="${PANEL_BASE}/deliveries">Clear</a></div>
  </form>`
}

export interface DeliveryListData {
  readonly filter: FilterValues
  /** The families' webhook event types (`registry.eventTypes`). */
  readonly eventTypes: readonly string[]
  readonly items: readonly DeliverySummary[]
  readonly nextCursor: string | null
  readonly credentials: readonly CredentialRecord[]
  readonly deadLetters: number
}

export function deliveryListView(d: DeliveryListData): Html {
  const labels = new Map(d.credentials.map((c) => [c.id, c.label]))
  const filtered = Object.values(d.filter).some(Boolean)
  return html`<h1>Deliveries</h1>
    <section><div class="quick">
      <a href="${deliveriesHref({ status: 'failed' })}"${d.filter.status === 'failed' && Object.values(d.filter).filter(Boolean).length === 1 ? html` aria-current="true"` : ''}>Dead-letter queue: ${plural(d.deadLetters, 'dead-lettered delivery', 'dead-lettered deliveries')}</a>
      <a href="${deliveriesHref({ status: 'queued' })}">Queued</a><a href="${deliveriesHref({ status: 'delivered', since: '24h' })}">Delivered in 24 hours</a>
    </div>${filterForm(d.filter, d.eventTypes, d.credentials)}</section>
    <section id="log">
    ${d.items.length === 0 ? html`<p class="muted">No delivery matches${filtered ? ' this filter' : ''}.</p>` : html`
    <div class="section-head"><h2>${filtered ? 'Matching deliveries' : 'All deliveries'}, newest first</h2>
      <a href="${PANEL_BASE}/deliveries/replay?${new URLSearchParams(Object.entries(d.filter).filter(([, v]) => v) as [string, string][]).toString()}">Replay ${filtered ? 'these' : 'all'}…</a></div>
    <table class="cards"><thead><tr><th>Id</th><th>Event</th><th>Resource</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Created</th><th>Routed to</th></tr></thead><tbody>
    ${d.items.map((x) => html`<tr>${cell('Id', html`<a href="${PANEL_BASE}/deliveries/${x.id}">${x.id}</a>`)}${cell('Event', eventOf(x))}${cell('Resource', resourceOf(x))}
      ${cell('Status', statusBadge(x.status))}${cell('Attempts', x.attempts)}${cell('Last answer', lastAnswer(x))}${cell('Created', when(x.createdAt))}
      ${cell('Routed to', x.routingMode === 'targeted' ? x.matchedCredentials.map((id) => labels.get(id) ?? id).join(', ') : x.routingMode)}</tr>`)}
    </tbody></table>
    ${d.nextCursor ? html`<p><a href="${deliveriesHref(d.filter, { cursor: d.nextCursor })}">Older deliveries →</a></p>` : ''}`}</section>`
}

function attemptCard(a: DeliveryDetail['attemptLog'][number]): Html {
  const answer = a.responseExcerpt === null ? html`<p class="muted">No answer received.</p>`
    : html`<details><summary>Answer: ${a.responseBytes === null ? '' : plural(a.responseBytes, 'byte', 'bytes')}${(a.responseBytes ?? 0) > EXCERPT_BYTES ? ` (the first ${EXCERPT_BYTES} shown)` : ''}</summary><pre>${a.responseExcerpt || '(empty)'}</pre></details>`
  return html`<li class="attempt"><div class="attempt-head"><strong>Attempt ${a.attempt}</strong> ${badge(a.outcome === 'failed' ? 'dead-lettered' : a.outcome, a.outcome === 'retrying' ? 'warn' : a.outcome)}
      <span>${a.statusCode === null ? 'no HTTP status' : `HTTP ${a.statusCode}`}</span> <span>${a.durationMs} ms</span> <span class="muted">${when(a.attemptedAt)}</span></div>
    ${a.error && a.error !== `HTTP ${a.statusCode}` ? html`<p class="fail">${a.error}</p>` : ''}
    <details><summary>Headers sent</summary>${Object.keys(a.requestHeaders).length === 0 ? html`<p class="muted">Nothing was sent.</p>`
      : html`<dl class="kv headers">${Object.entries(a.requestHeaders).map(([k, v]) => html`<dt>${k}</dt><dd><code>${v}</code></dd>`)}</dl>`}</details>
    ${answer}</li>`
}

/**
 * Attempts grouped by round: the first delivery, then each replay. A replay starts the count
 * again (attempts are numbered from 1 per round), so a number not above the one before it
 * begins the next round. Without a replay there is one list, untitled.
 */
function attemptRounds(log: DeliveryDetail['attemptLog']): Html {
  const rounds: DeliveryDetail['attemptLog'][number][][] = []
  for (const a of log) {
    const current = rounds[rounds.length - 1]
    if (!current || a.attempt <= current[current.length - 1].attempt) rounds.push([a])
    else current.push(a)
  }
  if (rounds.length === 1) return html`<ol class="attempts">${rounds[0].map(attemptCard)}</ol>`
  return html`${rounds.map((r, i) => html`<h3 id="round-${i}">${i === 0 ? 'First delivery' : `Replay ${i}`} <span class="muted">${when(r[0].attemptedAt)}, ${plural(r.length, 'attempt', 'attempts')}</span></h3>
    <ol class="attempts" data-round="${i}">${r.map(attemptCard)}</ol>`)}`
}

export function deliveryView(s: PanelSession, d: DeliveryDetail, labels: ReadonlyMap<string, string>): Html {
  const replayable = d.status === 'failed' || d.status === 'delivered'
  return html`<h1>Delivery ${d.id}</h1><section><dl class="kv">
    <dt>Status</dt><dd>${statusBadge(d.status)}${d.deadLetteredAt && d.status !== 'delivered' ? html` <a href="${deliveriesHref({ status: 'failed' })}">in the dead-letter queue</a>` : ''}</dd>
    <dt>Event</dt><dd>${eventOf(d)}${d.resourceType && d.resourceId !== null ? html` of <a href="${deliveriesHref({ resource: resourceOf(d) })}">${resourceOf(d)}</a>` : ''}</dd>
    <dt>Delivery id</dt><dd><code>${d.deliveryId}</code></dd><dt>Event id</dt><dd><code>${d.eventId}</code></dd>
    <dt>Routing</dt><dd>${d.routingMode}${d.matchedCredentials.length > 0 ? html`: ${d.matchedCredentials.map((id, i) => html`${i > 0 ? ', ' : ''}<a href="${PANEL_BASE}/integrations/${encodeURIComponent(id)}">${labels.get(id) ?? id}</a>`)}` : ''}</dd>
    <dt>Created</dt><dd>${when(d.createdAt)}</dd><dt>Last attempt</dt><dd>${when(d.lastAttemptAt)}</dd>
    ${d.nextAttemptAt ? html`<dt>Next attempt</dt><dd>${when(d.nextAttemptAt)}</dd>` : ''}
    ${d.deliveredAt ? html`<dt>Delivered</dt><dd>${when(d.deliveredAt)}</dd>` : ''}${d.deadLetteredAt ? html`<dt>Dead-lettered</dt><dd>${when(d.deadLetteredAt)}</dd>` : ''}
    <dt>Replays</dt><dd>${d.replayCount}${d.replayedAt ? ` (last ${when(d.replayedAt)})` : ''}</dd></dl>
    <div class="actions">${replayable ? postButton(s, `${PANEL_BASE}/deliveries/${d.id}/replay`, d.status === 'failed' ? 'Replay' : 'Send again') : html`<span class="muted">Queued: it will be attempted again without a replay.</span>`}
      <a href="${PANEL_BASE}/deliveries">Delivery log</a></div></section>
    <section id="attempts"><h2>${plural(d.attemptLog.length, 'attempt', 'attempts')} recorded</h2>
      ${d.attemptLog.length === 0 ? html`<p class="muted">No attempt recorded yet.</p>` : attemptRounds(d.attemptLog)}</section>
    <section id="payload"><h2>Payload</h2><p class="muted">The exact body every attempt sent and signed.</p><pre>${prettyJson(d.payload)}</pre></section>`
}

export function replayConfirmView(s: PanelSession, f: FilterValues, replayable: number): Html {
  const n = Math.min(replayable, REPLAY_FILTER_LIMIT)
  const described = Object.entries(f).filter(([, v]) => v).map(([k, v]) => `${k} ${v}`).join(', ')
  return html`<h1>Replay deliveries</h1><section>
    <p>${described ? html`Filter: <code>${described}</code>.` : 'No filter: every delivery in the log.'}</p>
    ${replayable === 0 ? html`<p>Nothing to replay: no delivered or dead-lettered delivery matches.</p><p><a href="${deliveriesHref(f)}">Back</a></p>`
      : html`<p>${plural(replayable, 'delivered or dead-lettered delivery matches', 'delivered or dead-lettered deliveries match')}.
        ${replayable > REPLAY_FILTER_LIMIT ? `The oldest ${REPLAY_FILTER_LIMIT.toLocaleString('en')} are replayed now; replay again for the rest.` : ''}
        Each is sent again with the same delivery id, event id and body; receivers that already have it see a duplicate.</p>
      <form method="post" action="${PANEL_BASE}/deliveries/replay">${csrfField(s)}
        ${Object.entries(f).filter(([, v]) => v).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
        <div class="actions"><button type="submit" class="danger">Replay ${plural(n, 'delivery', 'deliveries')}</button><a href="${deliveriesHref(f)}">Cancel</a></div></form>`}</section>`
}
