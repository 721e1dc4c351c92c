// Types of the example worker, for the tests that import it (the worker itself is plain
// JavaScript, run as users run it).
export declare const COPY_LISTS: Readonly<Record<string, string>>
export type Call = (method: string, path: string, body?: unknown) => Promise<{ data: unknown; pagination?: { hasMore: boolean; nextCursor: string | null } }>
export declare function createClient(baseUrl: string, token: string): Call
export declare function applyChange(copy: Record<string, unknown>, item: { resourceType: string; resourceId: number; action: string; snapshot: unknown }): void
export interface WorkerContext {
  readonly baseUrl: string
  readonly adminToken: string
  readonly credentialId: string
  readonly call: Call
  readonly copy: Record<string, unknown>
  readonly stateFile: string
}
export declare function writeBack(ctx: WorkerContext, type: string, id: number, patch: Record<string, unknown>): Promise<boolean>
export interface WorkerOptions {
  readonly baseUrl: string
  readonly token: string
  readonly types: readonly string[]
  readonly stateFile: string
  readonly excludeOwn?: boolean
  readonly followMs?: number
  /** Called after each page's checkpoint, with the worker's copy (a two-way sync writes back here). */
  readonly afterPage?: (copy: Record<string, unknown>, call: Call, items: readonly { origin: { kind: string; credentialId?: string } }[]) => Promise<boolean | void>
}
export declare function runWorker(opts: WorkerOptions): Promise<{ records: number; applied: number }>
