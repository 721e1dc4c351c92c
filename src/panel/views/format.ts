// Small wording helpers shared by the screens: durations, status badges and table cells
// that carry their column's name (narrow screens show each row as a card labelled by it).
import { html, type Html } from '../html.js'

/** `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min`
  const h = Math.floor(m / 60)
  if (h < 48) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`
  const d = Math.floor(h / 24)
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`
}

export const badge = (text: string, tone: string = text): Html => html`<span class="badge ${tone}">${text}</span>`

/**
 * A table cell labelled with its column, for the card layout of narrow screens (the label
 * and the one wrapper beside it are the two columns of a card's row).
 */
export const cell = (label: string, content: Html | string | number | null | undefined): Html => html`<td data-label="${label}"><div>${content}</div></td>`

/**
 * Text whose `backticked` spans are code (incident and lifecycle actions are written for the
 * API's plain-text answers too): each span becomes <code>, everything escaped.
 */
export const withCode = (text: string): Html =>
  html`${text.split(/`([^`]+)`/).map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}`
