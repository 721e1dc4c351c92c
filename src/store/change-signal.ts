// When content may have changed, as one process can tell: the version page caches are kept
// under, and a wake-up for whoever waits for changes (the webhook delivery worker).
//
// - SQLite: the reading connection's `data_version` changes with every commit of any
//   connection, this process's and others'; the content store's own counter covers an
//   in-memory database (one connection). Other processes' commits wake nobody here.
// - PostgreSQL: every write transaction sends NOTIFY with its last change-log sequence
//   number, delivered at commit to every process listening (src/store/database.ts). The
//   version is that sequence number plus a count of (re)connections: while the listening
//   connection is down, changes can be missed, so there is no version and caches stay off.
//   Notifications arrive a few milliseconds after the commit: until then another process
//   may still serve the page it had, as a replica would.
import type { Database } from './database.js'

export const PRUNE_PAYLOAD = 'pruned'

export class ChangeSignal {
  private readonly subscribers = new Set<() => void>()
  private listening = false
  private generation = 0
  private seq = 0
  private stopListening: (() => Promise<void>) | undefined

  /** @param localCommits write transactions this process finished (ContentStore.commits). */
  constructor(private readonly database: Database, private readonly localCommits: () => number = () => 0) {}

  /** Starts listening for other processes' changes (PostgreSQL); resolves once it first tried. */
  async start(): Promise<void> {
    if (!this.database.listen || this.stopListening) return
    this.stopListening = await this.database.listen((payload) => this.changed(payload), (on) => {
      this.listening = on
      // Changes may have been missed while not listening: every version before is void.
      this.generation++
      if (on) this.emit()
    })
  }

  async stop(): Promise<void> {
    const stop = this.stopListening
    this.stopListening = undefined
    this.listening = false
    await stop?.()
  }

  /** Whether other processes' changes reach this one now (PostgreSQL, listening). */
  get crossProcess(): boolean {
    return this.listening
  }

  /** Changes whenever content may have changed; undefined when that cannot be known now. */
  version(): string | undefined {
    const dataVersion = this.database.dataVersion
    if (dataVersion) return `${this.localCommits()}:${dataVersion()}`
    if (!this.listening) return undefined
    return `${this.localCommits()}:${this.generation}:${this.seq}`
  }

  /** Calls `fn` after each change notification; returns the unsubscribe function. */
  subscribe(fn: () => void): () => void {
    this.subscribers.add(fn)
    return () => this.subscribers.delete(fn)
  }

  private changed(payload: string): void {
    const seq = Number(payload)
    // A change-log sequence number moves the version on; anything else (pruning) voids it.
    if (Number.isInteger(seq) && seq > this.seq) this.seq = seq
    else this.generation++
    this.emit()
  }

  private emit(): void {
    for (const fn of this.subscribers) fn()
  }
}
