// What the read operations need from a process's services. Routes, CLI, panel and MCP pass
// their `Services`; the operations know nothing of HTTP.
import type { Services } from '../compose/services.js'
import type { Caller } from '../auth/credentials.js'

export type ReadContext = Pick<Services, 'resources' | 'reader' | 'cursors' | 'settings' | 'database' | 'jobs'>

/**
 * What a read depends on of its caller: the scopes, which decide sensitive fields, statuses and
 * owners' visibility. A machine credential is one; the admin API reads as a holder of every
 * family's scopes.
 */
export type ReadCaller = Pick<Caller, 'scopes'> & { readonly credentialId?: string }

/** A page or item as ready JSON text: stored documents are spliced, never re-serialised. */
export interface JsonResult {
  /** JSON text of `data`. */
  readonly rawData: string
  readonly pagination?: { readonly hasMore: boolean; readonly nextCursor: string | null }
  readonly meta?: Record<string, unknown>
}
