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

/** The five fields' names and the numbers each takes (day of week: 0 and 7 are Sunday). */
const CRON_FIELDS = [['minute', 0, 59], ['hour', 0, 23], ['day of month', 1, 31], ['month', 1, 12], ['day of week', 0, 7]] as const

/**
 * A number outside its field's range, named as written: croner's own message gives its
 * internal zero-based value (`0 0 * 13 *` read "Invalid value for month: 12"). Steps (`/n`)
 * and everything that is not a number (names, `*`, `L`, `W`) are left to croner.
 */
function numberOutOfRange(fields: readonly string[]): string | null {
  for (const [i, [name, min, max]] of CRON_FIELDS.entries()) {
    for (const part of fields[i].split(',')) {
      for (const digits of part.split('/')[0].match(/\d+/g) ?? []) {
        const n = Number(digits)
        if (n < min || n > max) return `${name} ${digits} (in "${fields[i]}") is outside ${min}–${max}`
      }
    }
  }
  return null
}

function cronProblem(cron: string): string | null {
  const fields = cron.trim().split(/\s+/)
  if (fields.length !== 5 || cron.trim() === '') {
    return `expected 5 fields (minute hour day-of-month month day-of-week), got ${cron.trim() === '' ? 0 : fields.length}`
  }
  const outside = numberOutOfRange(fields)
  if (outside) return outside
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
