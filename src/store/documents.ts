// Turning a record into what is stored: the public document, the sensitive part kept
// apart, and the indexed column values mirrored from them.
import { Kind, type TSchema } from '@sinclair/typebox'
import type { ColumnDeclaration, Resource } from '../resources/declare.js'
import type { Doc } from '../resources/hooks.js'
import { columnName, type DialectAdapter } from './database.js'

/** The value a property takes when a create leaves it out. */
export function defaultFor(resource: Resource, key: string, schema: TSchema): unknown {
  if (key === 'status' && resource.status) return resource.status.default ?? resource.status.values[0]
  if (schema.anyOf) {
    const variants = schema.anyOf as TSchema[]
    if (variants.some((v) => v.type === 'null')) return null
    if (variants.every((v) => v.const !== undefined)) return variants[0].const
  }
  switch (schema.type) {
    case 'array': return []
    case 'object': return {}
    case 'boolean': return false
    case 'integer': case 'number': return 0
    case 'string': return ''
    default: return schema[Kind] === 'Record' ? {} : null
  }
}

/** Full record (public and sensitive properties) in declared order, defaults filled in. */
export function completeRecord(resource: Resource, values: Doc): Doc {
  const out: Doc = {}
  const props = resource.fullItem.properties as Record<string, TSchema>
  for (const [key, schema] of Object.entries(props)) {
    if (key in values && values[key] !== undefined) out[key] = values[key]
    else if (key === 'id' || key === 'uid' || key === 'createdAt' || key === 'updatedAt') continue
    else out[key] = defaultFor(resource, key, schema)
  }
  return out
}

export interface StoredParts {
  readonly doc: Doc
  readonly sensitive: Doc | null
}

export function splitSensitive(resource: Resource, full: Doc): StoredParts {
  if (resource.sensitiveKeys.length === 0) return { doc: full, sensitive: null }
  const doc: Doc = {}
  const sensitive: Doc = {}
  for (const [k, v] of Object.entries(full)) {
    if (resource.sensitiveKeys.includes(k)) sensitive[k] = v
    else doc[k] = v
  }
  return { doc, sensitive }
}

/** Row values for the resource's table. */
export function rowFor(resource: Resource, adapter: DialectAdapter, full: Doc): Record<string, unknown> {
  const { doc, sensitive } = splitSensitive(resource, full)
  const row: Record<string, unknown> = {
    uid: full.uid,
    created_at: Date.parse(full.createdAt as string),
    updated_at: Date.parse(full.updatedAt as string),
    doc: JSON.stringify(doc),
    sensitive: sensitive === null ? null : JSON.stringify(sensitive),
  }
  for (const [name, c] of Object.entries(resource.columns)) row[columnName(name)] = columnValue(c, adapter, full[name])
  return row
}

/** The value an indexed column holds for a document property's value (writes and backfills). */
export function columnValue(c: ColumnDeclaration, adapter: DialectAdapter, v: unknown): unknown {
  return v === null || v === undefined ? null
    : c.type === 'boolean' ? adapter.bool(Boolean(v))
      : c.type === 'timestamp' ? Date.parse(String(v))
        : v
}

/**
 * Joins the stored public document and sensitive part as JSON text without parsing:
 * both are JSON objects, so the sensitive members are spliced before the closing brace.
 */
export function mergeDocText(doc: string, sensitive: string | null): string {
  if (sensitive === null || sensitive.length <= 2) return doc
  return doc.slice(0, doc.lastIndexOf('}')) + ',' + sensitive.slice(sensitive.indexOf('{') + 1)
}

const DAY = 86_400_000
let dayStart = Number.NaN
let dayPrefix = ''
const pad2 = (n: number) => (n < 10 ? '0' + n : String(n))
const pad3 = (n: number) => (n < 10 ? '00' + n : n < 100 ? '0' + n : String(n))

/**
 * ISO 8601 text of a millisecond timestamp, as `Date#toISOString` writes it. A change-feed
 * page formats 400 of them; formatting the time of day against a remembered date is about
 * five times cheaper than building a Date each time.
 */
export function isoOf(ms: number): string {
  const day = Math.floor(ms / DAY) * DAY
  if (day !== dayStart) {
    const text = new Date(day).toISOString()
    // Years outside 0000..9999 are written with a sign and six digits: leave those to Date.
    if (text.length !== 24) return new Date(ms).toISOString()
    dayStart = day
    dayPrefix = text.slice(0, 11)
  }
  let rest = ms - day
  const h = Math.floor(rest / 3_600_000)
  rest -= h * 3_600_000
  const m = Math.floor(rest / 60_000)
  rest -= m * 60_000
  const s = Math.floor(rest / 1000)
  return dayPrefix + pad2(h) + ':' + pad2(m) + ':' + pad2(s) + '.' + pad3(rest - s * 1000) + 'Z'
}
