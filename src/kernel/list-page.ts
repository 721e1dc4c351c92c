// Paging for the lists that are not record lists (incidents, templates, starter packs,
// policies): the same `limit` and `cursor` parameters, the same `pagination` object and the
// same cursor rules (signed, bound to the page's other parameters, a 400 naming `cursor`
// otherwise) as every list, so a client pages them all one way (docs/api.md, Lists).
import { Type } from '@sinclair/typebox'
import { queryDigest, type CursorCodec } from './cursor.js'
import { invalid } from './errors.js'
import type { Pagination } from './machine-route.js'

export const PageLimit = Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1..200, default 50' })
export const PageCursor = Type.String({ minLength: 1, maxLength: 2048, description: 'pagination.nextCursor of the previous page' })

/** `limit` and `cursor`, to spread into a list's querystring schema. */
export const pageParams = { limit: Type.Optional(PageLimit), cursor: Type.Optional(PageCursor) } as const

export const DEFAULT_PAGE_LIMIT = 50

/**
 * Reads a cursor made by `encode` for the same `filters` (the page's parameters other than
 * `limit` and `cursor`): the position it ends at, or undefined on a first page. A cursor of
 * another query, or one whose position fails `valid`, is a 400 naming `cursor`.
 */
export function listCursor<P>(cursors: CursorCodec, filters: Readonly<Record<string, unknown>>, cursor: string | undefined, valid: (p: unknown) => p is P) {
  const q = queryDigest(filters)
  let after: P | undefined
  if (cursor !== undefined) {
    const c = cursors.decode<{ q?: string; p?: unknown }>(cursor)
    if (c.q !== q || !valid(c.p)) throw invalid('cursor', 'cursor belongs to another query; repeat the parameters of the first page')
    after = c.p
  }
  /** The pagination object of a page whose last item is at `last`. */
  const pagination = (hasMore: boolean, last: P | undefined): Pagination =>
    ({ hasMore, nextCursor: hasMore && last !== undefined ? cursors.encode({ q, p: last }) : null })
  return { after, pagination }
}

const isString = (p: unknown): p is string => typeof p === 'string'

/**
 * One page of a short list already in its order (built in code, or read whole), keyed by a
 * unique string: the page starts after the item the cursor names. An item added before that
 * one while a client pages is not seen by it, as on any keyset list; a cursor whose item is
 * gone is a 400 naming `cursor`, so the client starts again rather than skipping silently.
 */
export function pageInOrder<T>(items: readonly T[], keyOf: (item: T) => string, q: {
  readonly cursors: CursorCodec
  readonly filters: Readonly<Record<string, unknown>>
  readonly cursor?: string
  readonly limit?: number
}): { data: T[]; pagination: Pagination } {
  const { after, pagination } = listCursor(q.cursors, q.filters, q.cursor, isString)
  let start = 0
  if (after !== undefined) {
    const at = items.findIndex((item) => keyOf(item) === after)
    if (at < 0) throw invalid('cursor', 'the item this cursor ends at is gone; start again from the first page')
    start = at + 1
  }
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT
  const data = items.slice(start, start + limit)
  const hasMore = start + limit < items.length
  const last = data[data.length - 1]
  return { data, pagination: pagination(hasMore, last === undefined ? undefined : keyOf(last)) }
}
