// Charts drawn on the server as inline SVG: no script, no library, nothing fetched, so they
// work under the panel's Content-Security-Policy (colours come from the stylesheet through
// classes; SVG presentation attributes are not inline styles). The SVG stretches to the
// width it is given; labels are HTML around it, so they stay legible from 390 px up. Each
// point has a <title> (shown on hover) and the numbers are also in a table under the chart.
import { html, type Html } from '../html.js'
import { round2 } from '../../kernel/numbers.js'

export interface ChartSeries {
  readonly key: string
  readonly label: string
  /** Colour class from the stylesheet: s-ok, s-warn, s-bad, s-accent. */
  readonly tone: 'ok' | 'warn' | 'bad' | 'accent'
}

export interface ChartPoint {
  readonly at: string
  readonly values: Readonly<Record<string, number | null>>
}

export interface ChartSpec {
  readonly id: string
  readonly title: string
  /** Under the title: what one point is, and totals. */
  readonly note: string
  /** Stacked bars (counts) or lines (rates, latencies). */
  readonly kind: 'bars' | 'lines'
  readonly series: readonly ChartSeries[]
  readonly points: readonly ChartPoint[]
  readonly format: (n: number) => string
  /** How a point's time is written (clock time for short ranges, day and time for a week). */
  readonly timeLabel: (iso: string) => string
}

const HEIGHT = 100
const STEP = 10

/** The smallest 1, 2 or 5 times a power of ten at or above `v` (1 for nothing). */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1
  const p = 10 ** Math.floor(Math.log10(v))
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p
  return 10 * p
}

function bars(spec: ChartSpec, max: number): (Html | string)[] {
  return spec.points.flatMap((p, i) => {
    let y = HEIGHT
    return spec.series.map((s) => {
      const v = p.values[s.key] ?? 0
      const h = (v / max) * HEIGHT
      y -= h
      return v > 0 ? html`<rect class="s-${s.tone}" x="${i * STEP + 1}" y="${round2(y)}" width="${STEP - 2}" height="${round2(h)}"></rect>` : ''
    })
  })
}

function lines(spec: ChartSpec, max: number): Html[] {
  return spec.series.flatMap((s) => {
    // A missing value (no requests in that interval) breaks the line.
    const runs: { x: number; y: number }[][] = [[]]
    spec.points.forEach((p, i) => {
      const v = p.values[s.key]
      const run = runs[runs.length - 1]
      if (v === null || v === undefined) { if (run.length > 0) runs.push([]); return }
      run.push({ x: i * STEP + STEP / 2, y: round2(HEIGHT - (v / max) * HEIGHT) })
    })
    return runs.filter((r) => r.length > 0).map((r) => r.length === 1
      ? html`<line class="line s-${s.tone}" x1="${r[0].x - STEP / 2}" y1="${r[0].y}" x2="${r[0].x + STEP / 2}" y2="${r[0].y}" vector-effect="non-scaling-stroke"></line>`
      : html`<polyline class="line s-${s.tone}" points="${r.map((q) => `${q.x},${q.y}`).join(' ')}" vector-effect="non-scaling-stroke"></polyline>`)
  })
}

const describe = (spec: ChartSpec, p: ChartPoint) =>
  `${spec.timeLabel(p.at)}: ${spec.series.map((s) => `${s.label} ${p.values[s.key] === null || p.values[s.key] === undefined ? '—' : spec.format(p.values[s.key] as number)}`).join(', ')}`

export function chart(spec: ChartSpec): Html {
  const n = spec.points.length
  const values = spec.points.map((p) => spec.kind === 'bars'
    ? spec.series.reduce((sum, s) => sum + (p.values[s.key] ?? 0), 0)
    : Math.max(0, ...spec.series.map((s) => p.values[s.key] ?? 0)))
  const max = niceMax(Math.max(0, ...values))
  const width = Math.max(1, n) * STEP
  const grid = [0.5, 1].map((f) => html`<line class="grid" x1="0" x2="${width}" y1="${HEIGHT - f * HEIGHT}" y2="${HEIGHT - f * HEIGHT}" vector-effect="non-scaling-stroke"></line>`)
  // Full-height strips carry each point's numbers as a tooltip.
  const hits = spec.points.map((p, i) => html`<rect class="hit" x="${i * STEP}" y="0" width="${STEP}" height="${HEIGHT}"><title>${describe(spec, p)}</title></rect>`)
  const first = spec.points[0]
  const last = spec.points[n - 1]
  return html`<figure class="chart" id="${spec.id}">
    <figcaption><strong>${spec.title}</strong> <span class="muted">${spec.note}</span></figcaption>
    <div class="plot"><div class="y" aria-hidden="true"><span>${spec.format(max)}</span><span>${spec.format(max / 2)}</span><span>0</span></div>
    <svg viewBox="0 0 ${width} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${spec.title}, ${first ? spec.timeLabel(first.at) : ''} to ${last ? spec.timeLabel(last.at) : ''}">
      ${grid}${spec.kind === 'bars' ? bars(spec, max) : lines(spec, max)}${hits}
    </svg><span></span><div class="x" aria-hidden="true"><span>${first ? spec.timeLabel(first.at) : ''}</span><span>${last ? spec.timeLabel(last.at) : ''}</span></div></div>
    <ul class="legend">${spec.series.map((s) => html`<li><i class="swatch s-${s.tone}"></i>${s.label}</li>`)}</ul>
    <details><summary>Numbers</summary><div class="scroll"><table><thead><tr><th>From</th>${spec.series.map((s) => html`<th>${s.label}</th>`)}</tr></thead><tbody>
      ${spec.points.map((p) => html`<tr><td>${spec.timeLabel(p.at)}</td>${spec.series.map((s) => html`<td>${p.values[s.key] === null || p.values[s.key] === undefined ? '—' : spec.format(p.values[s.key] as number)}</td>`)}</tr>`)}
    </tbody></table></div></details>
  </figure>`
}
