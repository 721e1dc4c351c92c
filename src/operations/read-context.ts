// What the read operations need from a process's services. Routes, CLI, panel and MCP pass
// their `Services`; the operations know nothing of HTTP.
import type { Services } from './services.js'
import type { Caller } from '../kernel/caller.js'
import type { ReadBoundaries } from '../kernel/read-boundary.js'

/** `jobs`: only the read boundary the job runtime answers (DESIGN §9). */
export type ReadContext = Pick<Services, 'resources' | 'reader' | 'cursors' | 'settings' | 'database'> & { readonly jobs: ReadBoundaries }

/**
 * What a read depends on of its caller: the scopes, which decide sensitive fields, statuses and
 * owners' visibility. A machine credential is one; the admin API reads as a holder of every
 * family's scopes.
 */
export type ReadCaller = Pick<Caller, 'scopes'> & { readonly credentialId?: string }

