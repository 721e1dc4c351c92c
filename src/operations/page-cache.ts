// Identical read requests between two writes get identical answers, so a page rendered
// once is kept until the data changes. The version is read before the query runs: a page
// computed from newer data than its version is harmless (no later request will ask for
// that version), and a page can never be older than the version it is stored under.
//
// A page is kept from its second request among the last `maxPages` different keys asked for
// (hits count as asks). A sync worker walks distinct pages once each; keeping each of them (up
// to 100 KB of text for a /changes page) would only churn the cache and keep every page alive
// long enough for V8 to copy it out of the young generation and later collect it from the old
// one: on the bench's walk of 400 distinct /changes pages, 12–18 ms scavenges every 50 ms, a
// third of the process's time. A key costs a few hundred bytes.
//
// Hits must count as asks: when only misses did, the window of "recent" keys stretched over
// every hit in between, so a cyclic walk of more pages than the cache holds (the bench's
// distinct rows) had pages kept and then served, about a fifth of its requests.
type Result = unknown

/** Requests answered from the cache and computed, since the process started (for /metrics). */
export interface PageCacheCounts {
  readonly hits: number
  readonly misses: number
}

export class PageCache {
  private version: string | undefined
  private readonly pages = new Map<string, Result>()
  /** The last `maxPages` different keys asked for, least recent first (a Set keeps insertion order). */
  private readonly recent = new Set<string>()
  private hits = 0
  private misses = 0

  /**
   * @param currentVersion changes whenever content may have changed; undefined turns the
   *   cache off (PostgreSQL: other processes write and there is no cheap version to read).
   */
  constructor(private readonly currentVersion: () => string | undefined, private readonly maxPages = 256) {}

  through<T extends Result>(key: string, compute: () => Promise<T>): Promise<T> {
    const askedBefore = this.ask(key)
    // A key not asked for recently can neither be answered from the cache nor kept in it, so
    // it needs no version: on SQLite reading one is a statement of its own (PRAGMA
    // data_version, 7 % of a distinct entries page's CPU), which a sync worker's walk of
    // distinct pages would pay on every page for nothing. Its page is the computation's own
    // promise, not one more wrapped around it.
    if (!askedBefore && !this.pages.has(key)) {
      this.misses++
      return compute()
    }
    return this.kept(key, compute)
  }

  /** A page that may be answered from the cache or kept in it. */
  private async kept<T extends Result>(key: string, compute: () => Promise<T>): Promise<T> {
    const version = this.currentVersion()
    if (version === undefined) {
      this.misses++
      return compute()
    }
    if (version !== this.version) {
      this.pages.clear()
      this.version = version
    }
    const hit = this.pages.get(key)
    if (hit) {
      this.hits++
      return hit as T
    }
    this.misses++
    const result = await compute()
    if (this.version === version) {
      if (this.pages.size >= this.maxPages) this.pages.delete(this.pages.keys().next().value as string)
      this.pages.set(key, result)
    }
    return result
  }

  counts(): PageCacheCounts {
    return { hits: this.hits, misses: this.misses }
  }

  /** Whether `key` is among the recent keys; makes it the most recent either way. */
  private ask(key: string): boolean {
    const known = this.recent.delete(key)
    this.recent.add(key)
    if (!known && this.recent.size > this.maxPages) this.recent.delete(this.recent.values().next().value as string)
    return known
  }
}
