// Identical read requests between two writes get identical answers, so a page rendered
// once is kept until the data changes. The version is read before the query runs: a page
// computed from newer data than its version is harmless (no later request will ask for
// that version), and a page can never be older than the version it is stored under.
type Result = unknown

export class PageCache {
  private version: string | undefined
  private readonly pages = new Map<string, Result>()

  /**
   * @param currentVersion changes whenever content may have changed; undefined turns the
   *   cache off (PostgreSQL: other processes write and there is no cheap version to read).
   */
  constructor(private readonly currentVersion: () => string | undefined, private readonly maxPages = 256) {}

  async through<T extends Result>(key: string, compute: () => Promise<T>): Promise<T> {
    const version = this.currentVersion()
    if (version === undefined) return compute()
    if (version !== this.version) {
      this.pages.clear()
      this.version = version
    }
    const hit = this.pages.get(key)
    if (hit) return hit as T
    const result = await compute()
    if (this.version === version) {
      if (this.pages.size >= this.maxPages) this.pages.delete(this.pages.keys().next().value as string)
      this.pages.set(key, result)
    }
    return result
  }
}
