// The read boundary (DESIGN §9): while a run of a workflow with a boundary holds a live
// lease, the workflow's credential reads through the machine API only the records inside
// that boundary. With several such runs open at once the credential may read what any of
// their boundaries holds; open runs of workflows without a boundary do not widen it.
// Looked up on every read, so answers are kept for a second per credential in each process
// (and dropped at once when this process changes a run): another process sees a run start
// or end within that second.
import type { Database, Db } from '../store/database.js'
import { OPEN_RUN_STATUSES, type WorkflowBoundary } from './workflow.js'
import type { ReadBoundary } from '../kernel/read-boundary.js'


/** The boundary on `credentialId`'s reads at `now`, or null when no bounded run is open. */
export async function activeReadBoundary(db: Db, credentialId: string, now: number): Promise<ReadBoundary | null> {
  const rows = await db.selectFrom('workflows as w').innerJoin('workflow_runs as r', 'r.workflow_id', 'w.id')
    .select(['w.id', 'w.name', 'w.boundary', 'r.lease_expires_at'])
    .where('w.credential_id', '=', credentialId).where('w.boundary', 'is not', null)
    .where('r.status', 'in', [...OPEN_RUN_STATUSES]).where('r.lease_expires_at', '>', now)
    .orderBy('w.name').orderBy('w.id').execute()
  if (rows.length === 0) return null
  // Over the axes each stored boundary has: one written before an axis existed names nothing on it.
  const values = new Map<string, Set<string | number>>()
  for (const row of rows) {
    const b = JSON.parse(row.boundary as string) as WorkflowBoundary
    for (const [axis, list] of Object.entries(b)) {
      const set = values.get(axis) ?? new Set()
      list.forEach((x) => set.add(x))
      values.set(axis, set)
    }
  }
  return {
    workflows: rows.map((r) => ({ id: r.id as string, name: r.name as string })),
    values: Object.fromEntries([...values].map(([axis, set]) => [axis, [...set]])),
    until: Math.min(...rows.map((r) => Number(r.lease_expires_at))),
  }
}

/**
 * The credential's open run with a live lease, the latest started when several are open (a
 * worker running two workflows at once cannot be told apart by its writes: docs/sync.md).
 */
export async function liveRunOf(db: Db, credentialId: string, now: number): Promise<string | null> {
  const row = await db.selectFrom('workflows as w').innerJoin('workflow_runs as r', 'r.workflow_id', 'w.id')
    .select('r.id').where('w.credential_id', '=', credentialId)
    .where('r.status', 'in', [...OPEN_RUN_STATUSES]).where('r.lease_expires_at', '>', now)
    .orderBy('r.started_at', 'desc').orderBy('r.id', 'desc').limit(1).executeTakeFirst()
  return row === undefined ? null : row.id as string
}

const TTL_MS = 1000

/** A credential's boundary as looked up: when, its answer, until when it holds, and the answer once in. */
interface BoundaryEntry {
  readonly at: number
  readonly value: Promise<ReadBoundary | null>
  until: number
  settled?: ReadBoundary | null
}

export class ReadBoundaryCache {
  private readonly entries = new Map<string, BoundaryEntry>()

  constructor(private readonly database: Database, private readonly now: () => number) {}

  get(credentialId: string): Promise<ReadBoundary | null> {
    const at = performance.now()
    const hit = this.entries.get(credentialId)
    if (hit && this.fresh(hit, at)) return hit.value
    // A database without the job tables yet (served before it is migrated) has no workflows.
    const value = activeReadBoundary(this.database.db, credentialId, this.now())
      .catch((err: unknown) => { if (this.database.adapter.isMissingTable(err)) return null; throw err })
    if (this.entries.size > 10_000) this.entries.clear()
    const entry: BoundaryEntry = { at, value, until: Number.POSITIVE_INFINITY }
    this.entries.set(credentialId, entry)
    value.then((b) => {
      if (b) entry.until = b.until
      entry.settled = b
    }, () => this.entries.delete(credentialId))
    return value
  }

  /**
   * What `get` would answer, when that is known now (looked up and fresh); undefined when it
   * must be waited for. Every machine-API read asks twice (the page cache's key and the list
   * itself): without a promise, most ask for nothing to wait on.
   */
  known(credentialId: string): ReadBoundary | null | undefined {
    const hit = this.entries.get(credentialId)
    return hit && hit.settled !== undefined && this.fresh(hit, performance.now()) ? hit.settled : undefined
  }

  /** Kept for a second, and never past the moment a lease it depends on runs out. */
  private fresh(entry: BoundaryEntry, at: number): boolean {
    return at - entry.at < TTL_MS && this.now() < entry.until
  }

  clear(): void {
    this.entries.clear()
  }
}
