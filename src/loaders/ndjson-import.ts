// NDJSON import through the write service. One record a line:
//
//   {"type":"entries","record":{"section":"news","type":"article","title":"Hi","slug":"hi"},"ref":"e1"}
//
// `type` is a resource type (the admin API's path names), `record` the same body a create
// takes, `ref` an optional name for the record; a later line can use the new record's id as
// {"$ref":"e1"} anywhere in its record. Lines are written in batches (one transaction each,
// through createMany). A batch that fails is split in halves until the bad lines are alone,
// so a bad line costs only itself: the summary names each rejected line and why.
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { ApiError, type ErrorDetail } from '../kernel/errors.js'
import type { Resource, ResourceRegistry } from '../resources/index.js'
import type { ContentStore } from '../store/content-store.js'
import { schemaProblems } from '../store/validation.js'
import type { ChangeOrigin } from '../store/change-origin.js'

/** Imported records' changes say so, for followers of the feed (`origin=import`). */
const IMPORT_ORIGIN: ChangeOrigin = { kind: 'import' }

/** Types an import may create: every family not declared `importable: false` (entry drafts: governed actions only). */
export function importableTypes(resources: ResourceRegistry): string[] {
  return resources.all.filter((r) => r.importable !== false).map((r) => r.type)
}

export interface ImportRejection {
  readonly line: number
  readonly type?: string
  readonly reason: string
  readonly details?: readonly ErrorDetail[]
}

export interface ImportSummary {
  /** Lines read, blank ones included. */
  readonly lines: number
  readonly imported: number
  readonly rejected: number
  /** Blank lines, ignored. */
  readonly blank: number
  readonly byType: Readonly<Record<string, number>>
  /** The first `maxRejections` rejections, in line order. */
  readonly rejections: readonly ImportRejection[]
  readonly rejectionsTruncated: boolean
}

export interface ImportProgress {
  /** Lines read so far, blank ones included (line numbers of the file). */
  readonly lines: number
  readonly bytesRead: number
  readonly imported: number
  readonly rejected: number
}

export interface ImportOptions {
  /** Lines per transaction (default 1000): larger batches commit less often, smaller ones cost less to split when a line fails. */
  readonly batchSize?: number
  /** Rejections kept for the summary (default 10,000); all are counted. */
  readonly maxRejections?: number
  /** Called after each batch with the lines and bytes read so far and what became of them. */
  readonly onProgress?: (progress: ImportProgress) => void
}

interface PendingLine {
  readonly line: number
  readonly input: Record<string, unknown>
  readonly ref?: string
}

const ALLOWED_KEYS = new Set(['type', 'record', 'ref'])

export async function importNdjson(store: ContentStore, input: Readable, opts: ImportOptions = {}): Promise<ImportSummary> {
  const importable = new Map(store.resources.all.filter((r) => r.importable !== false).map((r) => [r.type, r]))
  const batchSize = Math.max(1, opts.batchSize ?? 1000)
  const maxRejections = opts.maxRejections ?? 10_000
  const rejections: ImportRejection[] = []
  const byType: Record<string, number> = {}
  /** ref name → created id, or the line number whose rejection left it undefined. */
  const refs = new Map<string, { id?: number; line: number }>()
  let lines = 0, blank = 0, imported = 0, rejected = 0, bytes = 0
  let batch: { resource: Resource; items: PendingLine[] } | undefined

  const reject = (line: number, type: string | undefined, reason: string, details?: readonly ErrorDetail[]) => {
    rejected++
    if (rejections.length < maxRejections) rejections.push({ line, ...(type ? { type } : {}), reason, ...(details ? { details } : {}) })
  }

  /** Writes items in one transaction; on failure, halves until each bad line is rejected alone. */
  const write = async (resource: Resource, items: readonly PendingLine[]): Promise<void> => {
    try {
      const docs = await store.transaction((w) => w.createMany(resource.type, items.map((x) => x.input)), IMPORT_ORIGIN)
      items.forEach((x, i) => { if (x.ref !== undefined) refs.set(x.ref, { id: docs[i].id as number, line: x.line }) })
      imported += items.length
      byType[resource.type] = (byType[resource.type] ?? 0) + items.length
    } catch (err) {
      if (items.length === 1) {
        const { reason, details } = describeError(err)
        reject(items[0].line, resource.type, reason, details)
        return
      }
      const half = Math.ceil(items.length / 2)
      await write(resource, items.slice(0, half))
      await write(resource, items.slice(half))
    }
  }

  const flush = async () => {
    if (!batch) return
    const { resource, items } = batch
    batch = undefined
    await write(resource, items)
    opts.onProgress?.({ lines, bytesRead: bytes, imported, rejected })
  }

  const rl = createInterface({ input, crlfDelay: Infinity })
  for await (const raw of rl) {
    lines++
    bytes += Buffer.byteLength(raw) + 1
    const text = lines === 1 ? raw.replace(/^\uFEFF/, '') : raw
    if (text.trim() === '') { blank++; continue }
    const parsed = parseLine(text, importable)
    if ('reason' in parsed) { reject(lines, parsed.type, parsed.reason, parsed.details); continue }
    const { resource, record, ref } = parsed
    if (ref !== undefined && refs.has(ref)) {
      reject(lines, resource.type, `ref "${ref}" is already used on line ${(refs.get(ref) as { line: number }).line}`)
      continue
    }
    // Held before the line is written, so duplicates and uses of a rejected line's ref are named.
    if (ref !== undefined) refs.set(ref, { line: lines })
    const names = collectRefs(record)
    // A reference to a record still waiting in the batch needs that batch written first.
    if (batch && names.some((n) => batch?.items.some((x) => x.ref === n))) await flush()
    const unresolved = names.includes(ref as string) ? `$ref "${ref}" points at the line itself`
      : names.map((n) => refProblem(n, refs.get(n))).find((p) => p !== undefined)
    if (unresolved) { reject(lines, resource.type, unresolved); continue }
    const inputValue = names.length > 0 ? resolveRefs(record, refs) as Record<string, unknown> : record
    const problems = schemaProblems(resource.createInput, inputValue)
    if (problems.length > 0) { reject(lines, resource.type, formatDetails(problems), problems); continue }
    if (batch && (batch.resource !== resource || batch.items.length >= batchSize)) await flush()
    batch ??= { resource, items: [] }
    batch.items.push({ line: lines, input: inputValue, ref })
  }
  await flush()
  rejections.sort((a, b) => a.line - b.line)
  return { lines, imported, rejected, blank, byType, rejections, rejectionsTruncated: rejected > rejections.length }
}

type ParsedLine =
  | { readonly resource: Resource; readonly record: Record<string, unknown>; readonly ref?: string }
  | { readonly reason: string; readonly type?: string; readonly details?: readonly ErrorDetail[] }

function parseLine(text: string, importable: ReadonlyMap<string, Resource>): ParsedLine {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    return { reason: `not valid JSON (${(err as Error).message})` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { reason: 'expected an object {"type": …, "record": {…}}' }
  }
  const o = value as Record<string, unknown>
  const extra = Object.keys(o).filter((k) => !ALLOWED_KEYS.has(k))
  if (extra.length > 0) return { reason: `unknown key "${extra[0]}"; a line has "type", "record" and optionally "ref"` }
  if (typeof o.type !== 'string') return { reason: '"type" must be a string naming the resource type' }
  const resource = importable.get(o.type)
  if (!resource) return { reason: `unknown type "${o.type}"; expected one of ${[...importable.keys()].join(', ')}` }
  if (typeof o.record !== 'object' || o.record === null || Array.isArray(o.record)) {
    return { type: o.type, reason: '"record" must be an object' }
  }
  if (o.ref !== undefined && (typeof o.ref !== 'string' || o.ref.length === 0 || o.ref.length > 200)) {
    return { type: o.type, reason: '"ref" must be a non-empty string of at most 200 characters' }
  }
  return { resource, record: o.record as Record<string, unknown>, ref: o.ref as string | undefined }
}

const isRef = (v: unknown): v is { $ref: string } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { $ref?: unknown }).$ref === 'string'

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (isRef(value)) out.push(value.$ref)
  else if (Array.isArray(value)) for (const v of value) collectRefs(v, out)
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) collectRefs(v, out)
  return out
}

function resolveRefs(value: unknown, refs: ReadonlyMap<string, { id?: number }>): unknown {
  if (isRef(value)) return refs.get(value.$ref)?.id
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, refs))
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v, refs)]))
  }
  return value
}

function refProblem(name: string, target: { id?: number; line: number } | undefined): string | undefined {
  if (!target) return `unknown $ref "${name}"; a ref must be defined on an earlier line`
  if (target.id === undefined) return `$ref "${name}" points at line ${target.line}, which was rejected`
  return undefined
}

const formatDetails = (details: readonly ErrorDetail[]) => details.map((d) => `${d.param}: ${d.problem}`).join('; ')

/** A reason safe to show: ApiError text and details; never SQL or a stack for anything else. */
function describeError(err: unknown): { reason: string; details?: readonly ErrorDetail[] } {
  if (err instanceof ApiError) {
    return err.details && err.details.length > 0 ? { reason: formatDetails(err.details), details: err.details } : { reason: err.message }
  }
  return { reason: 'could not be written (unexpected storage error)' }
}
