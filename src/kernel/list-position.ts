// The position a list page's cursor carries: the last row's sort key and id, the digest of the
// query, and the lower bound of an incremental read. Written as `2|<id>|<u>|<digest>|<n|s><key>`
// rather than JSON: a page reads one cursor and writes the next, and JSON.parse and
// JSON.stringify of these few fields cost about 8 µs of a page in the serving process, more
// than the rest of the cursor's handling (docs/decisions.md, "Gatehouse's own cost, second
// pass"). The key comes last, so a text key may hold any character. Cursors written as JSON
// before are still read: sync workers keep them in their checkpoints.

export interface ListPosition {
  /** Sort key of the last row shown (`updatedAt` milliseconds, or a column's value). */
  readonly k: string | number
  /** Id of the last row shown. */
  readonly i: number
  /** Digest of the query (kernel/cursor.ts, `queryDigest`). */
  readonly q: string
  /** Lower bound on `updatedAt` of an incremental read. */
  readonly u?: number
}

const VERSION = '2|'

export function writeListPosition(p: ListPosition): string {
  return VERSION + p.i + '|' + (p.u ?? '') + '|' + p.q + '|' + (typeof p.k === 'number' ? 'n' + p.k : 's' + p.k)
}

/** Whether a cursor's text is a list position of this format (not JSON). */
export const isListPositionText = (text: string): boolean => text.startsWith(VERSION)

/** The position in a cursor's text, or undefined when the text is not one. */
export function readListPosition(text: string): ListPosition | undefined {
  if (!isListPositionText(text)) return text.startsWith('{') ? readJsonPosition(text) : undefined
  const at = separators(text)
  if (at === undefined || at[2] + 1 >= text.length) return undefined
  const [a, b, c] = at
  const i = integer(text.slice(2, a))
  const u = b === a + 1 ? undefined : integer(text.slice(a + 1, b))
  if (i === undefined || (b !== a + 1 && u === undefined)) return undefined
  const kind = text[c + 1]
  const rest = text.slice(c + 2)
  const k = kind === 'n' ? finite(rest) : kind === 's' ? rest : undefined
  if (k === undefined) return undefined
  return u === undefined ? { k, i, q: text.slice(b + 1, c) } : { k, i, q: text.slice(b + 1, c), u }
}

/**
 * Whether a cursor's text belongs to another query than `digest`: a position of either format
 * naming another digest, or a JSON cursor of another kind (the feed's, another list's) naming
 * none. Such a cursor is answered "belongs to a different query", as when every cursor was
 * JSON, rather than "malformed".
 */
export function namesOtherQuery(text: string, digest: string): boolean {
  if (isListPositionText(text)) {
    const at = separators(text)
    return at !== undefined && text.slice(at[1] + 1, at[2]) !== digest
  }
  const parsed = parseObject(text)
  return parsed !== undefined && parsed.q !== digest
}

/** Where the `|` after the id, the bound and the digest are in a position's text. */
function separators(text: string): readonly [number, number, number] | undefined {
  const a = text.indexOf('|', VERSION.length)
  const b = a < 0 ? -1 : text.indexOf('|', a + 1)
  const c = b < 0 ? -1 : text.indexOf('|', b + 1)
  return c < 0 ? undefined : [a, b, c]
}

/** A cursor of the first format: `{"k":…,"i":…,"q":…,"u":…}`. */
function readJsonPosition(text: string): ListPosition | undefined {
  const c = parseObject(text)
  if (c === undefined) return undefined
  const { k, i, q, u } = c
  if (typeof i !== 'number' || (typeof k !== 'number' && typeof k !== 'string') || typeof q !== 'string') return undefined
  if (u !== undefined && typeof u !== 'number') return undefined
  return u === undefined ? { k, i, q } : { k, i, q, u }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(text) as unknown
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : undefined
  } catch {
    return undefined
  }
}

/** An id or a time as the writer writes it: decimal digits, perhaps a minus sign. */
const INTEGER = /^-?\d+$/

function integer(text: string): number | undefined {
  if (!INTEGER.test(text)) return undefined
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : undefined
}

function finite(text: string): number | undefined {
  if (text === '') return undefined
  const n = Number(text)
  return Number.isFinite(n) ? n : undefined
}
