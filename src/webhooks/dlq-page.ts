// One page of the dead-letter queue with the machine API's pagination: GET /webhooks/dlq and
// `gatehouse webhooks dlq list` both answer with it, so `--json` prints what the API sends.
import type { CursorCodec } from '../kernel/cursor.js'
import { queryDigest } from '../kernel/cursor.js'
import { invalid } from '../kernel/errors.js'
import type { Database } from '../store/database.js'
import { listDeadLetters, type DeadLetter, type DeadLetterStatus } from './dead-letters.js'

export interface DeadLetterPage {
  readonly data: DeadLetter[]
  readonly pagination: { readonly hasMore: boolean; readonly nextCursor: string | null }
}

export async function deadLetterPage(database: Database, cursors: CursorCodec, q: { status?: DeadLetterStatus; limit: number; cursor?: string }): Promise<DeadLetterPage> {
  const digest = queryDigest({ status: q.status ?? null })
  let afterId: number | undefined
  if (q.cursor) {
    const c = cursors.decode<{ q?: string; after?: number }>(q.cursor)
    if (c.q !== digest || typeof c.after !== 'number') throw invalid('cursor', 'cursor belongs to another query')
    afterId = c.after
  }
  const { items, hasMore } = await listDeadLetters(database, { status: q.status, limit: q.limit, afterId })
  const last = items[items.length - 1]
  return { data: items, pagination: { hasMore, nextCursor: hasMore && last ? cursors.encode({ q: digest, after: last.id }) : null } }
}
