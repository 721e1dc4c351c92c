// An operation's answer as ready JSON text, which the surfaces send without parsing it again.

/** A page or item as ready JSON text: stored documents are spliced, never re-serialised. */
export interface JsonResult {
  /** JSON text of `data`. */
  readonly rawData: string
  readonly pagination?: { readonly hasMore: boolean; readonly nextCursor: string | null }
  readonly meta?: Record<string, unknown>
}
