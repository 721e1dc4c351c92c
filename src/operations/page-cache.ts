// Identical read requests between two writes get identical answers, so a page rendered
// once is kept until the data changes. The version is read before the query runs: a page
// computed from newer data than its version is harmless (no later request will ask for
// that version), and a page can never be older than the version it is stored under.
//
// A page is kept from its second request on (within the last `maxPages` keys asked for). A
// sync worker walks distinct pages once each; keeping each of them (up to 100 KB of text for
// a /changes page) would only churn the cache and keep every page alive long enough for V8
// to copy it out of the young generation and later collect it from the old one: on the
// bench's walk of 400 distinct /changes pages, 12–18 ms scavenges every 50 ms, a third of
// the process's time. A key costs a few hundred bytes.
type Result = unknown

export class PageCache {
  private version: string | undefined
  private readonly pages = new Map<string, Result>()
  /**
   * Keys asked for recently, kept across versions: as many as the cache holds pages (FIFO).
   * A page not asked for again within that many other requests would have left the cache
   * before its next request anyway.
   */
  private readonly seen = new Set<string>()

  /**
   * @param currentVersion changes whenever content may have changed; undefined turns the
   *   cache off (PostgreSQL: other processes write and there is no cheap version to read).
   */
  constructor(private readonly currentVersion: () => string | undefined, private readonly maxPages = 256) {}

  async through<T extends Result>(key: string, compute: () => Promise<T>): Promise<T> {
    // A key not asked for recently can neither be answered from the cache nor kept in it, so
    // it needs no version: on SQLite reading one is a statement of its own (PRAGMA
    // data_version, 7 % of a distinct entries page's CPU), which a sync worker's walk of
    // distinct pages would pay on every page for nothing.
    if (!this.pages.has(key) && !this.seen.has(key)) {
      this.remember(key)
      return compute()
    }
    const version = this.currentVersion()
    if (version === undefined) return compute()
    if (version !== this.version) {
      this.pages.clear()
      this.version = version
    }
    const hit = this.pages.get(key)
    if (hit) return hit as T
    const result = await compute()
    if (this.version === version && this.askedBefore(key)) {
      if (this.pages.size >= this.maxPages) this.pages.delete(this.pages.keys().next().value as string)
      this.pages.set(key, result)
    }
    return result
  }

  /** Whether `key` was asked for recently (also before the last write); remembers it if not. */
  private askedBefore(key: string): boolean {
    if (this.seen.has(key)) return true
    this.remember(key)
    return false
  }

  private remember(key: string): void {
    if (this.seen.size >= this.maxPages) this.seen.delete(this.seen.values().next().value as string)
    this.seen.add(key)
  }
}
