// Exact filters at a document path answered in keyset order, whatever the table's size.
//
// A GIN index on the document finds the records holding a value, but not in page order: a
// page of a value held by 0.1% of a million records read them all and sorted them, or walked
// the `updated_at` index testing thousands of documents (100–600 ms on the bench's 1M walk).
// So each served family has a side table of terms, one row per (path, scalar) its public
// document holds, with the record's `updated_at`: the B-tree on (term, updated_at, id) lists
// a value's records in page order, and a page reads about `limit` of them.
//
// The terms are a superset of the matches (keys joined by dots, array levels skipped, strings
// and numbers with the same text sharing a term): a list driven by a term still tests the
// filter itself on each record it reads, so a record is never listed that does not match, and
// every record that matches has the term. Writes keep the rows in the same transaction
// (content-store.ts); schema reconciliation creates and fills the table (schema-reconcile.ts).
import { createHash } from 'node:crypto'
import type { Resource } from '../resources/declare.js'
import type { Db } from './database.js'
import type { Doc } from '../resources/hooks.js'
import type { PathTest } from '../kernel/path-test.js'
import { isStructuredValue, jsonScalar } from './record-conditions.js'

/** Values longer than this get no term (body text); a filter on such a value is not driven. */
const TERM_VALUE_LIMIT = 128
/** Nor do terms longer than this (a long key path): a B-tree entry must stay well under 2.7 kB. */
const TERM_LIMIT = 512

const SEPARATOR = '\u001f'

/**
 * What the terms are made by. It names the terms table's id index (declared-schema.ts), so
 * a change to it (this version, or which properties are columns) is a schema step that
 * rebuilds the terms from the documents: terms written by other rules could miss matches.
 */
const TERMS_FORMAT = 1

/** Families whose lists can be filtered (served ones) keep terms. */
export const keepsTerms = (r: Resource) => r.scope !== undefined

export const termsTableOf = (r: Resource) => `${r.table}_terms`

/** A short digest of the rules that made a family's terms. */
export function termsSignature(r: Resource): string {
  const rules = JSON.stringify({ format: TERMS_FORMAT, columns: Object.keys(r.columns).sort() })
  return createHash('sha256').update(rules).digest('hex').slice(0, 8)
}

/** Top-level properties that get no term: base values, and those mirrored in a column (its B-tree answers them). */
function untermed(r: Resource, key: string): boolean {
  return key === 'id' || key === 'uid' || key === 'createdAt' || key === 'updatedAt' || Object.hasOwn(r.columns, key)
}

/** Text a term holds for a scalar: strings as they are, the JSON text of the rest. */
const scalarText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v))

/**
 * PostgreSQL text cannot hold U+0000, and its search document reads one (in older rows) as
 * U+FFFD (database.ts): terms do the same, so such a value is found as the filter finds it.
 */
const termText = (text: string) => (text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text)

const termFrom = (path: string, value: string): string | undefined => {
  const term = termText(path) + SEPARATOR + termText(value)
  return value.length <= TERM_VALUE_LIMIT && term.length <= TERM_LIMIT ? term : undefined
}

/** The distinct terms of a public document. */
export function documentTerms(r: Resource, doc: Doc): string[] {
  const out = new Set<string>()
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v, path)
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, path + '.' + k)
    } else if (value !== undefined) {
      const term = termFrom(path, scalarText(value))
      if (term !== undefined) out.add(term)
    }
  }
  for (const [k, v] of Object.entries(doc)) if (!untermed(r, k)) walk(v, k)
  return [...out]
}

/**
 * The one term every record matching an exact test holds, or undefined when the test cannot
 * be driven by terms: not an exact test of the public document, a value that is an object,
 * an array or too long, or a quoted string (`"x"` matches the texts `"x"` and `x`: two terms).
 */
export function termOf(r: Resource, t: PathTest): string | undefined {
  if (t.op !== 'exact' || t.source !== 'doc' || t.path.length === 0) return undefined
  if (t.path.length === 1 && untermed(r, t.path[0])) return undefined
  if (isStructuredValue(t.value)) return undefined
  const json = jsonScalar(t.value)
  if (typeof json === 'string' && json !== t.value) return undefined
  return termFrom(t.path.join('.'), t.value)
}

interface TermRow { term: string; updated_at: number; id: number }

/** Rows per INSERT: three parameters each, under SQLite's bound-parameter limit. */
const TERM_BATCH = 10_000

/**
 * Writes the terms of records just stored (`doc`: the public document as stored); returns
 * how many of them have any.
 */
export async function insertTerms(tx: Db, r: Resource, records: readonly { id: number; updatedAt: number; doc: Doc }[]): Promise<number> {
  const rows: TermRow[] = []
  let termed = 0
  for (const rec of records) {
    const terms = documentTerms(r, rec.doc)
    if (terms.length > 0) termed++
    for (const term of terms) rows.push({ term, updated_at: rec.updatedAt, id: rec.id })
  }
  for (let start = 0; start < rows.length; start += TERM_BATCH) {
    await tx.insertInto(termsTableOf(r)).values(rows.slice(start, start + TERM_BATCH)).execute()
  }
  return termed
}

export async function deleteTerms(tx: Db, r: Resource, id: number): Promise<void> {
  await tx.deleteFrom(termsTableOf(r)).where('id', '=', id).execute()
}
