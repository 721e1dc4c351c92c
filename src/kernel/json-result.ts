// An operation's answer as ready JSON text, which the surfaces send without parsing it again.

/** A page or item as ready JSON text: stored documents are spliced, never re-serialised. */
export interface JsonResult {
  /** JSON text of `data`. */
  readonly rawData: string
  /**
   * When `data` is an array: its items' JSON texts, so the envelope around them is written in
   * one join. Joining them here and putting the text into the envelope after would copy a page
   * twice (the join, then the envelope's concatenation when the socket flattens it): a copy of
   * a 40 KB page on every request, and the young-generation collections it costs.
   */
  readonly rawItems?: readonly string[]
  readonly pagination?: { readonly hasMore: boolean; readonly nextCursor: string | null }
  readonly meta?: Record<string, unknown>
}

/** The JsonResult of an array given as its items' JSON texts; `rawData` is joined on first use. */
class JsonItems implements JsonResult {
  private joined: string | undefined
  readonly pagination?: JsonResult['pagination']
  readonly meta?: JsonResult['meta']

  constructor(readonly rawItems: readonly string[], rest: Omit<JsonResult, 'rawData' | 'rawItems'>) {
    this.pagination = rest.pagination
    this.meta = rest.meta
  }

  get rawData(): string {
    return (this.joined ??= '[' + this.rawItems.join(',') + ']')
  }
}

export function jsonItems(items: readonly string[], rest: Omit<JsonResult, 'rawData' | 'rawItems'> = {}): JsonResult {
  return new JsonItems(items, rest)
}

/**
 * `head` + `[items joined by commas]` + `tail` as one flat string: the only copy of the items
 * made (Array.prototype.join writes its result in one piece, where `+` builds a rope that is
 * copied again when the string is written out).
 */
export function wrapItems(head: string, items: readonly string[], tail: string): string {
  if (items.length === 0) return head + '[]' + tail
  const parts = items.slice()
  parts[0] = head + '[' + parts[0]
  parts[parts.length - 1] = parts[parts.length - 1] + ']' + tail
  return parts.join(',')
}
