// The redirects file, kept current without a restart. The directory is watched (editors
// often write a new file and rename it over the old one, which a watch on the file itself
// would miss), and every access compares the file's inode, size and times with the version
// in memory, so a change is seen even where file watching is unreliable (network shares).
import { watch, type FSWatcher, type Stats } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import type { ProviderLogger } from '../provider.js'
import { formatOf, parseRedirects, RedirectsFileError, redirectsText, type Redirect } from './redirect-rules.js'
import { nextTurn, ROWS_PER_TURN } from './redirects-text.js'

export interface RedirectSet {
  /** Sorted by id (the list order and paging key). */
  readonly rules: readonly Redirect[]
  readonly byId: ReadonlyMap<string, Redirect>
}

const EMPTY: RedirectSet = { rules: [], byId: new Map() }
const stampOf = (st: Stats) => `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`

export class RedirectsFile {
  private set: RedirectSet = EMPTY
  /** Why the file on disk cannot be served (missing, unreadable, invalid), or null. */
  private problem: string | null = null
  /** The same without the file's values or its path, for readiness (machine clients read it). */
  private summary: string | null = null
  /** The version last read (or last refused); `missing` when there was no file. */
  private stamp: string | null = null
  private reloading: Promise<void> | undefined
  private watcher: FSWatcher | undefined
  private debounce: NodeJS.Timeout | undefined

  constructor(readonly path: string, private readonly logger?: ProviderLogger, private readonly debounceMs = 25) {}

  /** Reads the file; the problem, if any, is returned (start-up refuses to serve it). */
  async open(): Promise<string | null> {
    await this.reload()
    this.startWatching()
    return this.problem
  }

  close(): void {
    clearTimeout(this.debounce)
    this.watcher?.close()
    this.watcher = undefined
  }

  /** The rules as the file has them now; re-reads first when the file changed. */
  async current(): Promise<{ readonly set: RedirectSet; readonly problem: string | null; readonly summary: string | null }> {
    let now: string
    try {
      now = stampOf(await stat(this.path))
    } catch {
      now = 'missing'
    }
    if (now !== this.stamp) await this.reload()
    return { set: this.set, problem: this.problem, summary: this.summary }
  }

  private reload(): Promise<void> {
    this.reloading ??= this.read().finally(() => { this.reloading = undefined })
    return this.reloading
  }

  private async read(): Promise<void> {
    let st: Stats
    try {
      // Stat before reading: a change during the read leaves a newer stamp on disk, so the
      // next access reads again.
      st = await stat(this.path)
    } catch (err) {
      this.refuse('missing', (err as { code?: string }).code === 'ENOENT' ? 'the file does not exist' : 'the file cannot be read')
      return
    }
    try {
      const text = await redirectsText(await readFile(this.path))
      const rules = await parseRedirects(text, formatOf(this.path, text), st.mtime)
      // Files are usually kept in id order: sort only when they are not.
      if (rules.some((r, i) => i > 0 && rules[i - 1].id > r.id)) rules.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      const byId = new Map<string, Redirect>()
      for (const [i, r] of rules.entries()) {
        if (i % ROWS_PER_TURN === ROWS_PER_TURN - 1) await nextTurn()
        byId.set(r.id, r)
      }
      const changed = this.problem !== null || this.stamp !== null
      this.set = { rules, byId }
      this.problem = null
      this.summary = null
      this.stamp = stampOf(st)
      if (changed) this.logger?.info({ file: this.path, redirects: rules.length }, 'redirects file loaded')
    } catch (err) {
      if (err instanceof RedirectsFileError) this.refuse(stampOf(st), err.message, err.summary)
      else this.refuse(stampOf(st), 'the file cannot be read')
    }
  }

  /** The version on disk is not served; nothing is served until a valid version replaces it. */
  private refuse(stamp: string, problem: string, summary = problem): void {
    if (this.problem !== problem) this.logger?.warn({ file: this.path, problem }, 'redirects file refused')
    this.set = EMPTY
    this.problem = problem
    this.summary = summary
    this.stamp = stamp
  }

  private startWatching(): void {
    const name = basename(this.path)
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, changed) => {
        if (changed !== null && changed !== name) return
        clearTimeout(this.debounce)
        // Editors write in several steps; read once they are done.
        this.debounce = setTimeout(() => void this.current(), this.debounceMs)
      })
      this.watcher.on('error', (err) => {
        this.logger?.warn({ err, file: this.path }, 'watching the redirects file failed; changes are noticed on access')
        this.close()
      })
    } catch (err) {
      this.logger?.warn({ err, file: this.path }, 'cannot watch the redirects file; changes are noticed on access')
    }
  }
}
