// Parsing and validating the redirects file: CSV with a header row (csv-parse, so quoting,
// embedded commas and a byte-order mark are handled as spreadsheets write them) or JSON
// lines. Every problem is reported with its line number; a file with any problem is refused
// as a whole, so a half-valid file is never served.
import { CsvError } from 'csv-parse'
import { Type, type Static } from '@sinclair/typebox'
import { parseBoolean } from '../../kernel/booleans.js'
import { csvRecords, type CsvRecord, decodeUtf8, nextTurn, ROWS_PER_TURN } from './redirects-text.js'
import { isRealMoment } from '../../kernel/calendar.js'

export const STATUS_CODES = [301, 302, 307, 308] as const

export const Redirect = Type.Object({
  id: Type.String({ description: 'Stable id: letters, digits, and . _ ~ -' }),
  from: Type.String({ description: 'Path requested on the site, starting with /' }),
  to: Type.String({ description: 'Target: a path starting with / or an absolute http(s) URL' }),
  statusCode: Type.Integer({ enum: [...STATUS_CODES], description: 'HTTP status of the redirect' }),
  enabled: Type.Boolean(),
  updatedAt: Type.String({ format: 'date-time', description: 'From the file, or the file\'s modification time' }),
}, { additionalProperties: false })
export type Redirect = Static<typeof Redirect>

export const FIELDS = ['id', 'from', 'to', 'statusCode', 'enabled', 'updatedAt'] as const
const REQUIRED = ['id', 'from', 'to'] as const
/** At most this many problems are listed; the rest are counted. */
const MAX_PROBLEMS = 10

export type RedirectsFormat = 'csv' | 'jsonl'

export class RedirectsFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.length <= MAX_PROBLEMS ? problems.join('; ') : `${problems.slice(0, MAX_PROBLEMS).join('; ')}; and ${problems.length - MAX_PROBLEMS} more`)
  }

  /**
   * The refusal without the file's values: readiness shows it to machine clients, who must
   * not read the file through it (the message, with values, goes to the log and start-up).
   */
  get summary(): string {
    const lines = [...new Set(this.problems.map(lineOf).filter((n) => n > 0))]
    const where = lines.length === 0 ? '' : `, on line${lines.length > 1 ? 's' : ''} ${lines.slice(0, MAX_PROBLEMS).join(', ')}${lines.length > MAX_PROBLEMS ? ` and ${lines.length - MAX_PROBLEMS} more` : ''}`
    return `the file is refused: ${this.problems.length} problem${this.problems.length === 1 ? '' : 's'}${where} (the server log names each)`
  }
}

/** `.csv` is CSV, `.jsonl` and `.ndjson` are JSON lines; otherwise a first `{` means JSON lines. */
export function formatOf(file: string, text: string): RedirectsFormat {
  if (/\.csv$/i.test(file)) return 'csv'
  if (/\.(jsonl|ndjson)$/i.test(file)) return 'jsonl'
  return text.replace(/^\uFEFF/, '').trimStart().startsWith('{') ? 'jsonl' : 'csv'
}

/** A raw row before validation: CSV cells are text, JSON values keep their types. */
interface Row {
  readonly line: number
  readonly values: Readonly<Record<string, unknown>>
  readonly typed: boolean
}

/** The file's bytes as text, or refused naming each line that is not UTF-8. */
export async function redirectsText(bytes: Uint8Array): Promise<string> {
  const decoded = await decodeUtf8(bytes)
  if ('text' in decoded) return decoded.text
  throw new RedirectsFileError(decoded.badLines.map((line) => `line ${line}: not valid UTF-8`))
}

/** Parses and checks the file's text; yields to the event loop as it goes (a file may hold 100,000 rows). */
export async function parseRedirects(text: string, format: RedirectsFormat, fileUpdatedAt: Date): Promise<Redirect[]> {
  const problems: string[] = []
  const rows = format === 'csv' ? await csvRows(text, problems) : await jsonRows(text, problems)
  const out: Redirect[] = []
  const ids = new Map<string, number>()
  const sources = new Map<string, number>()
  for (const [i, row] of rows.entries()) {
    if (i % ROWS_PER_TURN === ROWS_PER_TURN - 1) await nextTurn()
    const r = checkRow(row, fileUpdatedAt, problems)
    if (!r) continue
    const idLine = ids.get(r.id)
    if (idLine !== undefined) problems.push(`line ${row.line}: id "${r.id}" is already used on line ${idLine}`)
    else ids.set(r.id, row.line)
    // Two enabled redirects from one path would make the answer depend on file order.
    const fromLine = r.enabled ? sources.get(r.from) : undefined
    if (fromLine !== undefined) problems.push(`line ${row.line}: from "${r.from}" is already redirected on line ${fromLine}`)
    else if (r.enabled) sources.set(r.from, row.line)
    out.push(r)
  }
  if (problems.length > 0) throw new RedirectsFileError(problems.sort((a, b) => lineOf(a) - lineOf(b)))
  return out
}

/** Problems read in file order (the sort is stable: one line's problems keep their order). */
const lineOf = (problem: string) => Number(/^line (\d+)/.exec(problem)?.[1] ?? 0)

async function csvRows(text: string, problems: string[]): Promise<Row[]> {
  let records: CsvRecord[]
  try {
    records = await csvRecords(text)
  } catch (err) {
    problems.push(err instanceof CsvError ? `line ${(err as CsvError & { lines?: number }).lines ?? '?'}: ${err.message.replace(/ (on|at) line \d+$/, '')}` : String(err))
    return []
  }
  if (records.length === 0) return []
  const [head, ...body] = records
  const columns = head.record
  const unknown = columns.filter((c) => !(FIELDS as readonly string[]).includes(c))
  if (unknown.length > 0) problems.push(`line ${head.info.lines}: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')}; columns are ${FIELDS.join(', ')}`)
  const missing = REQUIRED.filter((c) => !columns.includes(c))
  if (missing.length > 0) problems.push(`line ${head.info.lines}: the header row has no ${missing.join(', ')} column`)
  const twice = columns.filter((c, i) => columns.indexOf(c) !== i)
  if (twice.length > 0) problems.push(`line ${head.info.lines}: column "${twice[0]}" appears twice`)
  if (problems.length > 0) return []
  const rows: Row[] = []
  for (const [n, { record, info }] of body.entries()) {
    if (n % ROWS_PER_TURN === ROWS_PER_TURN - 1) await nextTurn()
    rows.push({ line: info.lines, values: Object.fromEntries(columns.map((c, i) => [c, record[i]]).filter(([, v]) => v !== '')), typed: false })
  }
  return rows
}

async function jsonRows(text: string, problems: string[]): Promise<Row[]> {
  const rows: Row[] = []
  const lines = text.replace(/^\uFEFF/, '').split('\n')
  for (const [i, raw] of lines.entries()) {
    if (i % ROWS_PER_TURN === ROWS_PER_TURN - 1) await nextTurn()
    jsonRow(raw, i + 1, rows, problems)
  }
  return rows
}

function jsonRow(raw: string, line: number, rows: Row[], problems: string[]): void {
  if (raw.trim() === '') return
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    problems.push(`line ${line}: not valid JSON`)
    return
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`line ${line}: expected a JSON object`)
    return
  }
  const unknown = Object.keys(value).filter((k) => !(FIELDS as readonly string[]).includes(k))
  if (unknown.length > 0) problems.push(`line ${line}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; fields are ${FIELDS.join(', ')}`)
  rows.push({ line, values: value as Record<string, unknown>, typed: true })
}

const ID = /^[A-Za-z0-9._~-]{1,128}$/
const MAX_URL = 2048

function checkRow({ line, values, typed }: Row, fileUpdatedAt: Date, problems: string[]): Redirect | undefined {
  const before = problems.length
  const bad = (field: string, problem: string) => problems.push(`line ${line}: ${field} ${problem}`)
  const text = (field: string): string | undefined => {
    const v = values[field]
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'string') { bad(field, `must be a string, got ${JSON.stringify(v)}`); return undefined }
    return v
  }
  for (const f of REQUIRED) if (values[f] === undefined || values[f] === null || values[f] === '') bad(f, 'is required')

  const id = text('id')
  if (id !== undefined && !ID.test(id)) bad('id', `"${id}" must be 1 to 128 letters, digits or . _ ~ -`)
  const from = text('from')
  if (from !== undefined && (!from.startsWith('/') || /\s/.test(from) || from.length > MAX_URL)) bad('from', `"${from}" must be a path starting with / without spaces`)
  const to = text('to')
  if (to !== undefined && !validTarget(to)) bad('to', `"${to}" must be a path starting with / or an absolute http(s) URL, without spaces, backslashes or control characters`)
  if (from !== undefined && to !== undefined && from === to) bad('to', 'redirects to itself')

  let statusCode = 301
  const rawStatus = values.statusCode
  if (rawStatus !== undefined && rawStatus !== null) {
    const n = typed ? rawStatus : /^\d+$/.test(String(rawStatus)) ? Number(rawStatus) : NaN
    if (typeof n !== 'number' || !(STATUS_CODES as readonly number[]).includes(n)) bad('statusCode', `must be one of ${STATUS_CODES.join(', ')}, got ${JSON.stringify(rawStatus)}`)
    else statusCode = n
  }

  let enabled = true
  const rawEnabled = values.enabled
  if (rawEnabled !== undefined && rawEnabled !== null) {
    const b = typed ? rawEnabled : parseBoolean(String(rawEnabled))
    if (typeof b !== 'boolean') bad('enabled', `must be ${typed ? 'true or false' : 'one of true, false, 1, 0, yes, no, on, off'}, got ${JSON.stringify(rawEnabled)}`)
    else enabled = b
  }

  let updatedAt = fileUpdatedAt.toISOString()
  const rawUpdated = text('updatedAt')
  if (rawUpdated !== undefined) {
    const ms = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(rawUpdated) && isRealMoment(rawUpdated) ? Date.parse(rawUpdated) : NaN
    if (Number.isNaN(ms)) bad('updatedAt', `"${rawUpdated}" must be an ISO 8601 date or date-time with a time zone`)
    else updatedAt = new Date(ms).toISOString()
  }
  if (problems.length > before || id === undefined || from === undefined || to === undefined) return undefined
  return { id, from, to, statusCode, enabled, updatedAt }
}

// Browsers read a backslash as a slash (`/\evil.example/` goes to evil.example, like
// `//evil.example/`) and drop tabs and line breaks inside a URL: neither may appear in a target.
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const UNSAFE_IN_TARGET = /[\s\\\x00-\x1f\x7f]/

function validTarget(to: string): boolean {
  if (UNSAFE_IN_TARGET.test(to) || to.length > MAX_URL) return false
  if (to.startsWith('/')) return !to.startsWith('//')
  try {
    const u = new URL(to)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}
