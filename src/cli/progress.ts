// A progress bar on stderr, so stdout stays clean for results and `--json`. On a terminal
// it redraws one line; when stderr is a file or a pipe (CI logs, tests) it prints a plain
// line every few seconds instead of filling the log with carriage returns.
import { formatCount, formatSeconds } from './output.js'

export interface Progress {
  /** Sets how much is done; `total` may be revised as the work learns more. */
  update(done: number, total?: number): void
  /** Ends the bar with a final line. */
  finish(summary?: string): void
}

export interface ProgressOptions {
  /** What is being counted, 0 when unknown (stdin). */
  readonly total: number
  /** What the counts are of (default `records`). */
  readonly unit?: 'records' | 'lines'
  /**
   * The total is an estimate until the work ends (demo data: addresses and variants are drawn
   * at random): shown as `~2,975` and `~41%` so nobody takes it for a count.
   */
  readonly estimated?: boolean
  readonly stream?: NodeJS.WriteStream
  /** Seconds between lines when the stream is not a terminal (default 2). */
  readonly lineInterval?: number
}

const WIDTH = 28

export function createProgress(label: string, opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr
  const tty = stream.isTTY === true
  const started = Date.now()
  let total = Math.max(0, opts.total)
  let done = 0
  let lastDraw = 0
  const unit = opts.unit ?? 'records'
  const about = opts.estimated ? '~' : ''
  const ratio = () => (total > 0 ? Math.min(1, done / total) : 0)

  const draw = (final: boolean) => {
    // An unknown total (stdin) shows only what is done.
    const pct = total > 0 ? `${about}${Math.floor(ratio() * 100)}%`.padStart(4) : ''
    const counts = `${formatCount(done)}${total > 0 ? `/${about}${formatCount(total)}` : ''} ${unit}`
    if (tty) {
      const filled = Math.round(ratio() * WIDTH)
      const bar = '█'.repeat(filled) + '░'.repeat(WIDTH - filled)
      stream.write(`\r\x1b[2K${label} ${bar} ${pct} ${counts} ${formatSeconds(Date.now() - started)}${final ? '\n' : ''}`)
    } else {
      stream.write(`${label}: ${pct ? pct.trim() + ' ' : ''}(${counts}, ${formatSeconds(Date.now() - started)})\n`)
    }
  }

  return {
    update(n, newTotal) {
      done = n
      if (newTotal !== undefined) total = newTotal
      const now = Date.now()
      const interval = tty ? 100 : (opts.lineInterval ?? 2) * 1000
      if (now - lastDraw >= interval) {
        lastDraw = now
        draw(false)
      }
    },
    finish(summary) {
      if (total < done) total = done
      if (summary === undefined) draw(true)
      else stream.write(`${tty ? '\r\x1b[2K' : ''}${label}: ${summary} in ${formatSeconds(Date.now() - started)}\n`)
    },
  }
}
