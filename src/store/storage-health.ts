// Whether the database's disk is full, as this process last saw it. A write that fails with
// the dialect's disk-full error (SQLITE_FULL, PostgreSQL 53100) marks storage full: the cause
// is logged once, not on every refused write, and readiness, diagnostics and the
// `storage_full` incident show it. It stays marked until a write succeeds again: the next
// write transaction of the content store, or the probe readiness, diagnostics and the
// incident monitor run while it is marked (a one-row write of the meta table).
import type { Logger } from 'pino'
import type { Database } from './database.js'
import { setMeta } from './meta.js'

export interface StorageFull {
  /** When this process first saw the disk full (milliseconds). */
  readonly since: number
  /** The driver's code (`SQLITE_FULL`, `53100`) and its message: no SQL, no values. */
  readonly code: string
  readonly cause: string
}

/** An episode that ended before the incident monitor could record it (the disk was full throughout). */
export interface StorageFullEpisode {
  readonly since: number
  readonly until: number
}

const PROBE_KEY = 'storage_probe'

export class StorageHealth {
  private state: StorageFull | null = null
  private ended: StorageFullEpisode | null = null

  constructor(private readonly database: Database, private readonly logger?: Logger) {}

  /** The disk-full state, or null while writes succeed. */
  get full(): StorageFull | null {
    return this.state
  }

  /** Whether `err` says the disk is full; if so storage is marked full (logged the first time). */
  noteError(err: unknown, now = Date.now()): boolean {
    if (!this.database.adapter.isStorageFull(err)) return false
    if (!this.state) {
      const e = err as { code?: unknown; message?: unknown }
      this.state = { since: now, code: String(e.code ?? 'unknown'), cause: String(e.message ?? '').slice(0, 200) }
      this.logger?.error({ code: this.state.code, cause: this.state.cause, dialect: this.database.adapter.name },
        'storage full: the database cannot write (free disk space); writes answer 507 STORAGE_FULL until one succeeds')
    }
    return true
  }

  /** A write committed: storage is writable again. */
  noteWrite(now = Date.now()): void {
    if (!this.state) return
    this.ended = { since: this.state.since, until: now }
    this.logger?.warn({ fullForSeconds: Math.round((now - this.state.since) / 1000) }, 'storage writable again: a write succeeded')
    this.state = null
  }

  /** While marked full, tries a one-row write; clears the mark when it commits. Never rejects. */
  async probe(now = Date.now()): Promise<StorageFull | null> {
    if (!this.state) return null
    try {
      await setMeta(this.database.db, PROBE_KEY, new Date(now).toISOString())
      this.noteWrite(now)
    } catch (err) {
      this.noteError(err, now)
    }
    return this.state
  }

  /** The episode that ended unrecorded, handed over once (the incident monitor records it as resolved). */
  takeEndedEpisode(): StorageFullEpisode | null {
    const e = this.ended
    this.ended = null
    return e
  }

  /** Gives an episode back when recording it failed. */
  returnEndedEpisode(e: StorageFullEpisode): void {
    this.ended ??= e
  }
}
