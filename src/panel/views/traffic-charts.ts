// The traffic charts of the Status and Integrations screens, from one metric series: request
// rate (by outcome), error rate, p95 latency and webhook delivery outcomes, with links to
// switch between the last hour, day and week.
import { html, plural, type Html } from '../html.js'
import { CHART_RANGES, type ChartRange, type Series } from '../../ops/metric-buckets.js'
import { chart, type ChartSpec } from './chart.js'

export type TrafficChart = 'requests' | 'errors' | 'latency' | 'deliveries'

const RANGE_TITLES: Record<ChartRange, string> = { hour: 'Last hour', day: 'Last 24 hours', week: 'Last 7 days' }

const percent = (n: number) => `${n >= 10 || n === 0 ? Math.round(n) : n.toFixed(1)}%`
const count = (n: number) => (Number.isInteger(n) ? n.toLocaleString('en') : n.toFixed(1))
const ms = (n: number) => (n >= 1000 ? `${n / 1000} s` : `${Math.round(n)} ms`)
const every = (seconds: number) => (seconds >= 3600 ? `${seconds / 3600} hours` : seconds === 60 ? 'minute' : `${seconds / 60} minutes`)

/** Links to the same page with another range; the current one is marked. */
export function rangeLinks(path: string, current: ChartRange, keep: Record<string, string> = {}): Html {
  return html`<nav class="ranges" aria-label="Time range">${CHART_RANGES.map((r) => {
    const href = `${path}?${new URLSearchParams({ ...keep, range: r }).toString()}`
    return html`<a href="${href}"${r === current ? html` aria-current="true"` : ''}>${RANGE_TITLES[r]}</a>`
  })}</nav>`
}

export function trafficCharts(series: Series, which: readonly TrafficChart[]): Html {
  const t = series.totals
  // A window that crosses midnight (the week always, the day unless it starts at 00:00) labels
  // its points with their date: "09:15 … 09:00" would not say which day is which.
  const days = new Set(series.points.map((p) => p.at.slice(0, 10)))
  const timeLabel = series.range === 'week' || days.size > 1
    ? (iso: string) => `${iso.slice(5, 10)} ${iso.slice(11, 16)}`
    : (iso: string) => iso.slice(11, 16)
  const per = `per ${every(series.stepSeconds)} (UTC)`
  const errors = t.clientErrors + t.serverErrors
  const specs: Record<TrafficChart, ChartSpec> = {
    requests: {
      id: 'chart-requests', title: 'Requests', kind: 'bars', format: count, timeLabel,
      note: `${per}: ${plural(t.requests, 'request', 'requests')} in all`,
      series: [{ key: 'ok', label: 'Answered', tone: 'ok' }, { key: 'client', label: '4xx', tone: 'warn' }, { key: 'server', label: '5xx', tone: 'bad' }],
      points: series.points.map((p) => ({ at: p.at, values: { ok: p.requests - p.clientErrors - p.serverErrors, client: p.clientErrors, server: p.serverErrors } })),
    },
    errors: {
      id: 'chart-errors', title: 'Error rate', kind: 'lines', format: percent, timeLabel,
      note: `share of requests answered 4xx or 5xx, ${per}: ${t.requests === 0 ? 'no requests' : `${percent((errors / t.requests) * 100)} (${plural(errors, 'error', 'errors')})`}`,
      series: [{ key: 'client', label: '4xx', tone: 'warn' }, { key: 'server', label: '5xx', tone: 'bad' }],
      points: series.points.map((p) => ({
        at: p.at,
        values: p.requests === 0 ? { client: null, server: null } : { client: (p.clientErrors / p.requests) * 100, server: (p.serverErrors / p.requests) * 100 },
      })),
    },
    latency: {
      id: 'chart-latency', title: 'p95 latency', kind: 'lines', format: ms, timeLabel,
      note: `95% of requests answered within, ${per}: ${t.p95Ms === null ? 'no requests' : `${ms(t.p95Ms)} over the range`}`,
      series: [{ key: 'p95', label: 'p95', tone: 'accent' }],
      points: series.points.map((p) => ({ at: p.at, values: { p95: p.p95Ms } })),
    },
    deliveries: {
      id: 'chart-deliveries', title: 'Webhook deliveries', kind: 'bars', format: count, timeLabel,
      note: `attempts by outcome, ${per}: ${plural(t.delivered, 'delivered', 'delivered')}, ${plural(t.failedAttempts, 'failed attempt', 'failed attempts')}, ${plural(t.deadLettered, 'dead-lettered', 'dead-lettered')}`,
      series: [{ key: 'delivered', label: 'Delivered', tone: 'ok' }, { key: 'retried', label: 'Failed, retried', tone: 'warn' }, { key: 'dead', label: 'Dead-lettered', tone: 'bad' }],
      points: series.points.map((p) => ({ at: p.at, values: { delivered: p.delivered, retried: p.failedAttempts - p.deadLettered, dead: p.deadLettered } })),
    },
  }
  return html`<div class="charts">${which.map((k) => chart(specs[k]))}</div>`
}

export { RANGE_TITLES }
