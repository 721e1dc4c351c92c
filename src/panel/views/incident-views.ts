// The Incidents screen: open incidents first, each with its signal, the measured value
// against its thresholds and the recommended action; then the recently resolved ones.
import { html, when, type Html } from '../html.js'
import type { Incident } from '../../ops/incident-monitor.js'
import type { Threshold } from '../../ops/incident-rules.js'
import { badge, cell, duration, withCode } from './format.js'

const bySeconds = (i: Incident) => Object.values(i.thresholds).some((t) => t?.seconds !== undefined)
const valueText = (i: Incident, v: number) => (bySeconds(i) ? duration(v) : v.toLocaleString('en'))

function thresholdText(t: Threshold): string {
  const parts: string[] = []
  if (t.count !== undefined) parts.push(`${t.count.toLocaleString('en')} or more`)
  if (t.rate !== undefined) parts.push(`at least ${Math.round(t.rate * 100)}% of the window's traffic`)
  if (t.seconds !== undefined) parts.push(`${duration(t.seconds)} or longer`)
  return parts.join(' and ')
}

function thresholds(i: Incident): Html {
  return html`<ul class="thresholds">${(['warn', 'critical'] as const).filter((k) => i.thresholds[k]).map((k) => html`<li>${badge(k)} ${thresholdText(i.thresholds[k] as Threshold)}</li>`)}</ul>`
}

function openCard(i: Incident, now: number): Html {
  return html`<section class="incident" id="${i.id}"><h2>${i.summary} ${badge(i.currentSeverity ?? i.severity)}</h2><dl class="kv">
    <dt>Category</dt><dd><code>${i.category}</code></dd>
    <dt>Signal</dt><dd><code>${i.signal}</code> over ${duration(i.windowSeconds)}: now <strong>${valueText(i, i.value)}</strong>, peak ${valueText(i, i.peakValue)}</dd>
    <dt>Thresholds</dt><dd>${thresholds(i)}</dd>
    <dt>Open since</dt><dd>${when(i.openedAt)} (${duration((now - Date.parse(i.openedAt)) / 1000)})</dd>
    <dt>Highest level</dt><dd>${badge(i.severity)}</dd>
  </dl><p class="action"><strong>Recommended action:</strong> ${withCode(i.recommendedAction)}</p></section>`
}

export function incidentsView(incidents: readonly Incident[], now = Date.now()): Html {
  const open = incidents.filter((i) => i.status === 'open')
  const resolved = incidents.filter((i) => i.status === 'resolved')
  return html`<h1>Incidents</h1>
    <p class="muted">Derived from reliability signals over a sliding window (not lifetime counts), shared by every Gatehouse process. An incident resolves once its signal falls below every threshold.</p>
    ${open.length === 0 ? html`<section id="open"><p class="ok">No open incidents.</p></section>` : open.map((i) => openCard(i, now))}
    <section id="recent"><h2>Recently resolved</h2>${resolved.length === 0 ? html`<p class="muted">None in the last 30 days.</p>` : html`
      <table class="cards"><thead><tr><th>Incident</th><th>Highest level</th><th>Peak</th><th>Opened</th><th>Lasted</th><th>Recommended action</th></tr></thead><tbody>
      ${resolved.map((i) => html`<tr>${cell('Incident', html`${i.summary}<br><code>${i.category}</code>`)}${cell('Highest level', badge(i.severity))}
        ${cell('Peak', html`${valueText(i, i.peakValue)} <span class="muted">${i.signal}</span>`)}${cell('Opened', when(i.openedAt))}
        ${cell('Lasted', duration((Date.parse(i.resolvedAt ?? i.openedAt) - Date.parse(i.openedAt)) / 1000))}${cell('Recommended action', withCode(i.recommendedAction))}</tr>`)}
      </tbody></table>`}</section>`
}
