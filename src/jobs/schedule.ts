// Schedules: a five-field cron expression read in an IANA time zone. Occurrences are computed
// by croner (a maintained parser with time-zone and DST handling), never by our own parser.
// Across a spring-forward gap a time that does not exist fires once, at the first instant
// after the gap (02:30 becomes 03:00 in Europe/Berlin); across a fall-back overlap a daily
// time fires once, at its first instance. Sub-hourly expressions fire at every real instant
// they name, the repeated hour included. docs/jobs.md and docs/decisions.md say the same.
import { Cron } from 'croner'
import type { ErrorDetail } from '../kernel/errors.js'

export interface Schedule {
  readonly cron: string
  readonly timezone: string
}

/** An IANA zone name (`Europe/Berlin`, `America/Argentina/Buenos_Aires`, `UTC`), not an offset. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/

function zoneProblem(timezone: string): string | null {
  if (!ZONE_NAME.test(timezone)) return 'not an IANA time zone name (for example Europe/Berlin or UTC)'
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone })
    return null
  } catch {
    return `unknown IANA time zone "${timezone}"`
  }
}

function cronProblem(cron: string): string | null {
  const fields = cron.trim().split(/\s+/)
  if (fields.length !== 5 || cron.trim() === '') {
    return `expected 5 fields (minute hour day-of-month month day-of-week), got ${cron.trim() === '' ? 0 : fields.length}`
  }
  try {
    const c = new Cron(cron, { paused: true })
    if (c.nextRun(new Date()) === null) return 'the expression never fires'
    return null
  } catch (err) {
    return (err instanceof Error ? err.message : String(err)).replace(/^CronPattern: /, '')
  }
}

/** What is wrong with a schedule, one detail per field (`schedule.cron`, `schedule.timezone`). */
export function scheduleProblems(s: Schedule, prefix = 'schedule.'): ErrorDetail[] {
  const out: ErrorDetail[] = []
  const cron = cronProblem(s.cron)
  if (cron) out.push({ param: `${prefix}cron`, problem: cron })
  const zone = zoneProblem(s.timezone)
  if (zone) out.push({ param: `${prefix}timezone`, problem: zone })
  return out
}

/** A checked schedule's occurrences, as epoch milliseconds. */
export interface Occurrences {
  /** The latest occurrence at or before `t`, or null. */
  atOrBefore(t: number): number | null
  /** The first occurrence strictly after `t`, or null. */
  after(t: number): number | null
}

const compiled = new Map<string, Occurrences>()

/** Occurrences of a valid schedule (check it with scheduleProblems first). */
export function occurrencesOf(s: Schedule): Occurrences {
  const key = `${s.timezone} ${s.cron}`
  let o = compiled.get(key)
  if (!o) {
    const cron = new Cron(s.cron.trim(), { timezone: s.timezone, paused: true })
    o = {
      // croner's previous runs are strictly before the reference: one millisecond later includes `t`.
      atOrBefore: (t) => cron.previousRuns(1, new Date(t + 1))[0]?.getTime() ?? null,
      after: (t) => cron.nextRun(new Date(t))?.getTime() ?? null,
    }
    if (compiled.size >= 1000) compiled.clear()
    compiled.set(key, o)
  }
  return o
}
