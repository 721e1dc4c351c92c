// The one write service of the content store. Admin API, import, seed and governed
// actions all write through it: it validates, keeps stored documents and derived values
// right, and appends to the change log, all in one transaction.
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Resource, ResourceRegistry } from '../resources/index.js'
import type { Doc, RecordWriter } from '../resources/hooks.js'
import { ApiError, invalid, invalidMany, notFound, type ErrorDetail } from '../kernel/errors.js'
import { columnName, type Database, type Db } from './database.js'
import { completeRecord, isoOf, rowFor, splitSensitive } from './documents.js'
import { schemaProblems } from './validation.js'
import { appendChanges, type ChangeAction, type ChangeEvent } from './change-log.js'
import { SYSTEM_ORIGIN, type ChangeOrigin } from './change-origin.js'
import { deleteTerms, insertTerms, keepsTerms } from './record-terms.js'

export type { ChangeEvent }

/** Runs inside the write transaction after the change log rows are appended (the outbox). */
export type ChangeHook = (tx: Db, events: readonly ChangeEvent[]) => Promise<void>

export interface Actor {
  readonly type: 'admin' | 'credential' | 'system' | 'import'
  readonly id: string
}

export interface ContentStoreOptions {
  /** Run inside every write transaction after its change rows are appended (the webhook outbox). */
  readonly hooks?: readonly ChangeHook[]
  /**
   * Test-only: `false` skips the change log's commit-order lock on PostgreSQL, so the
   * concurrent-writer feed test can show it would catch a skipped change. Never set it
   * in a running service.
   */
  readonly commitOrderLock?: boolean
  /** Called after each write transaction commits (storage health: a write succeeded). */
  readonly onCommit?: () => void
}

export class ContentStore {
  private readonly hooks: ChangeHook[]
  private readonly referrers: Referrers

  constructor(readonly database: Database, readonly resources: ResourceRegistry, private readonly options: ContentStoreOptions = {}) {
    this.hooks = [...(options.hooks ?? [])]
    this.referrers = referrersOf(resources)
  }

  /** Adds a hook after construction (tests observe or fail the write transaction with one). */
  addChangeHook(hook: ChangeHook): void {
    this.hooks.push(hook)
  }

  /**
   * Runs `fn` in one transaction; its changes, derived refreshes and hooks commit together.
   * Every change it makes carries `origin` (who caused it; the service itself when unnamed).
   */
  async transaction<T>(fn: (w: StoreWriter) => Promise<T>, origin: ChangeOrigin = SYSTEM_ORIGIN): Promise<T> {
    try {
      const result = await this.database.db.transaction().execute(async (trx) => {
        const w = new StoreWriter(trx, this.database, this.resources, this.referrers, this.options, true)
        w.origin = origin
        const result = await fn(w)
        await w.flush(this.hooks)
        return result
      })
      this.options.onCommit?.()
      return result
    } finally {
      // Counted after commit (or rollback): readers caching pages compare this number.
      this.commits++
    }
  }

  /** Transactions finished through this store; changes whenever its content may have. */
  commits = 0

  /** Records a change made past the write service (pruning the change log), for page caches. */
  noteChange(): void {
    this.commits++
  }

  create(type: string, input: unknown, origin?: ChangeOrigin): Promise<Doc> {
    return this.transaction((w) => w.create(type, input), origin)
  }

  update(type: string, id: number, patch: unknown, origin?: ChangeOrigin): Promise<Doc> {
    return this.transaction((w) => w.update(type, id, patch), origin)
  }

  remove(type: string, id: number, origin?: ChangeOrigin): Promise<void> {
    return this.transaction((w) => w.remove(type, id), origin)
  }

  /** The full record (public and sensitive parts) or undefined. */
  get(type: string, id: number): Promise<Doc | undefined> {
    return this.outsideTransaction().get(type, id)
  }

  /** True when no family holds a record (demo data goes only into an empty store). */
  async isEmpty(): Promise<boolean> {
    for (const r of this.resources.all) {
      if (await this.database.db.selectFrom(r.table).select('id').limit(1).executeTakeFirst()) return false
    }
    return true
  }

  /** A writer on no transaction, for reads that resolve what a payload names. */
  outsideTransaction(): StoreWriter {
    return new StoreWriter(this.database.db, this.database, this.resources, this.referrers)
  }
}

/** For each family, the properties of other families that reference it (from the declarations). */
type Referrers = ReadonlyMap<string, readonly { other: Resource; prop: string; ref: { readonly type: string; readonly by?: string } }[]>

/** What a record's terms are written from: its public document as stored. */
const termSource = (r: Resource, full: Doc) => ({ id: full.id as number, updatedAt: Date.parse(full.updatedAt as string), doc: splitSensitive(r, full).doc })

function referrersOf(resources: ResourceRegistry): Referrers {
  const out = new Map<string, { other: Resource; prop: string; ref: { readonly type: string; readonly by?: string } }[]>()
  for (const other of resources.all) {
    for (const [prop, ref] of Object.entries(other.references ?? {})) out.set(ref.type, [...(out.get(ref.type) ?? []), { other, prop, ref }])
  }
  return out
}

export class StoreWriter implements RecordWriter {
  private readonly events: ChangeEvent[] = []
  /** Records whose family `rollup` runs at flush, by family type. */
  private readonly dirty = new Map<string, Set<number>>()
  private readonly knownRefs = new Map<string, Set<unknown>>()
  private lastStamp = 0
  /** Who causes this transaction's changes (set by ContentStore.transaction). */
  origin: ChangeOrigin = SYSTEM_ORIGIN

  /**
   * @param locking inside a write transaction, reads lock the rows they read (PostgreSQL
   *   `FOR UPDATE`), so a read-modify-write never works from a copy another transaction is
   *   changing: without it two concurrent refunds or stock adjustments both read the old
   *   value and the last one wins. SQLite transactions hold the write lock from BEGIN.
   */
  constructor(
    readonly tx: Db,
    private readonly database: Database,
    private readonly resources: ResourceRegistry,
    private readonly referrers: Referrers,
    private readonly options: ContentStoreOptions = {},
    private readonly locking = false,
  ) {}

  /**
   * Waits until no other transaction holds `key`, then holds it to this one's end (PostgreSQL's
   * advisory lock; SQLite's writers take turns already). For a rule no index can hold: a
   * check-then-write that two transactions would otherwise both pass.
   */
  takeTurns(key: number): Promise<void> {
    return this.database.adapter.transactionLock(this.tx, key)
  }

  private resourceOrThrow(type: string): Resource {
    const r = this.resources.byType(type)
    if (!r) throw notFound(`Unknown resource type: ${type}`)
    return r
  }

  /**
   * Millisecond timestamp, never decreasing within this writer. Never ahead of the clock:
   * a timestamp in the future would let a later write sort before it and be skipped by a
   * keyset reader. Equal timestamps are fine; lists break ties by id.
   */
  private stamp(): number {
    this.lastStamp = Math.max(Date.now(), this.lastStamp)
    return this.lastStamp
  }

  async get(type: string, id: number): Promise<Doc | undefined> {
    const r = this.resourceOrThrow(type)
    let query = this.tx.selectFrom(r.table)
      .select([this.database.adapter.docText('doc').as('doc'), this.database.adapter.docText('sensitive').as('sensitive')])
      .where('id', '=', id)
    if (this.locking && this.database.adapter.rowLocks) query = query.forUpdate()
    const row = await query.executeTakeFirst()
    if (!row) return undefined
    return { ...JSON.parse(row.doc as string), ...(row.sensitive ? JSON.parse(row.sensitive as string) : {}) }
  }

  async idsWhere(type: string, property: string, value: unknown): Promise<number[]> {
    const r = this.resourceOrThrow(type)
    const rows = await this.tx.selectFrom(r.table).select('id').where(this.propertyEquals(r, property, value)).orderBy('id').execute()
    return rows.map((x) => x.id as number)
  }

  async docsWhere(type: string, property: string, value: unknown): Promise<Doc[]> {
    const r = this.resourceOrThrow(type)
    const a = this.database.adapter
    const rows = await this.tx.selectFrom(r.table).select([a.docText('doc').as('doc'), a.docText('sensitive').as('sensitive')])
      .where(this.propertyEquals(r, property, value)).orderBy('id').execute()
    return rows.map((row) => ({ ...JSON.parse(row.doc as string), ...(row.sensitive ? JSON.parse(row.sensitive as string) : {}) }))
  }

  markDirty(type: string, id: number): void {
    const ids = this.dirty.get(type) ?? new Set<number>()
    ids.add(id)
    this.dirty.set(type, ids)
  }

  async create(type: string, input: unknown): Promise<Doc> {
    return (await this.createMany(type, [input]))[0]
  }

  /** Creates records in batches; the first invalid one throws and nothing is kept. */
  async createMany(type: string, inputs: readonly unknown[]): Promise<Doc[]> {
    const r = this.resourceOrThrow(type)
    const fulls: Doc[] = []
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i]
      const problems = schemaProblems(r.createInput, input)
      if (problems.length > 0) throw invalidMany(problems)
      await this.checkReferences(r, input as Doc)
      const now = this.stamp()
      const full = completeRecord(r, { ...(input as Doc), uid: randomUUID(), createdAt: isoOf(now), updatedAt: isoOf(now) })
      await this.derived(() => r.hooks?.beforeWrite?.(this, full, undefined))
      // A left-out property whose type has no valid default (a handle, whose pattern '' fails)
      // must be given: never store a document its own schema rejects.
      // Ids come later, in a batch: check with a stand-in so a valid record passes the fast
      // compiled check instead of walking the error iterator for the missing id every time.
      const noDefault = schemaProblems(r.fullItem, { ...full, id: 1 })
      if (noDefault.length > 0) throw invalidMany(noDefault.map((p) => ({ param: p.param, problem: 'required: it has no default' })))
      fulls.push(full)
    }
    const adapter = this.database.adapter
    const ids = await this.allocateIds(r, fulls.length)
    fulls.forEach((f, i) => {
      // Put id first in the stored document, as in every item.
      const ordered: Doc = { id: ids[i], ...f }
      Object.keys(f).forEach((k) => delete f[k])
      Object.assign(f, ordered)
    })
    // Batches stay under SQLite's bound-parameter limit.
    const perRow = 6 + Object.keys(r.columns).length
    const batch = Math.max(1, Math.floor(30000 / perRow))
    for (let start = 0; start < fulls.length; start += batch) {
      const slice = fulls.slice(start, start + batch)
      const rows = slice.map((f) => ({ id: f.id, ...rowFor(r, adapter, f) }))
      await this.run(r, () => this.tx.insertInto(r.table).values(rows).execute())
      if (keepsTerms(r)) await insertTerms(this.tx, r, slice.map((f) => termSource(r, f)))
      for (const f of slice) {
        this.record(r, f, 'created')
        await this.derived(() => r.hooks?.afterWrite?.(this, f, undefined))
      }
    }
    return fulls
  }

  /** `restore`: puts back values this transaction changed (a governed step's undo); hooks skip rules about changes, such as order status transitions. */
  async update(type: string, id: number, patch: unknown, opts: { restore?: boolean } = {}): Promise<Doc> {
    const r = this.resourceOrThrow(type)
    const problems = schemaProblems(r.updateInput, patch)
    if (problems.length > 0) throw invalidMany(problems)
    const previous = await this.get(type, id)
    if (!previous) throw notFound(`No ${type} record with id ${id}`)
    await this.checkReferences(r, patch as Doc)
    const next: Doc = { ...previous, ...(patch as Doc), id, uid: previous.uid, createdAt: previous.createdAt, updatedAt: isoOf(this.stamp()) }
    await this.derived(() => r.hooks?.beforeWrite?.(this, next, previous, { restore: opts.restore === true }))
    // A key other records refer by (a section's handle) does not change under them.
    await this.refuseIfReferenced(r, previous, next)
    await this.writeRow(r, next)
    this.record(r, next, 'updated')
    if (r.status !== undefined && previous.status !== next.status) await this.recordOwnedOf(r, id)
    await this.derived(() => r.hooks?.afterWrite?.(this, next, previous))
    return next
  }

  /**
   * What `update` would store, without writing: the record as it is and as it would be, with
   * what the family's hooks derive (an order's paidStatus) and their rules checked (they throw
   * as the write would). For showing a change before it is made (an approval's page); the
   * hooks get a view of the store that cannot write.
   */
  async previewUpdate(type: string, id: number, patch: Doc): Promise<{ previous: Doc; next: Doc }> {
    const r = this.resourceOrThrow(type)
    const problems = schemaProblems(r.updateInput, patch)
    if (problems.length > 0) throw invalidMany(problems)
    const previous = await this.get(type, id)
    if (!previous) throw notFound(`No ${type} record with id ${id}`)
    const next: Doc = { ...previous, ...patch }
    await r.hooks?.beforeWrite?.(this.readOnly(), next, previous, { restore: false })
    return { previous, next }
  }

  /** What `create` would store, without writing (defaults filled, hooks' values derived; no id, uid or timestamps yet). */
  async previewCreate(type: string, input: Doc): Promise<Doc> {
    const r = this.resourceOrThrow(type)
    const problems = schemaProblems(r.createInput, input)
    if (problems.length > 0) throw invalidMany(problems)
    const next = completeRecord(r, input)
    await r.hooks?.beforeWrite?.(this.readOnly(), next, undefined)
    return next
  }

  private readOnly(): RecordWriter {
    return {
      get: (type, id) => this.get(type, id),
      docsWhere: (type, property, value) => this.docsWhere(type, property, value),
      idsWhere: (type, property, value) => this.idsWhere(type, property, value),
      remove: () => Promise.reject(new Error('a preview writes nothing')),
      update: () => Promise.reject(new Error('a preview writes nothing')),
      markDirty: () => {},
      // A preview writes nothing, so it has no rule to hold against other writers.
      takeTurns: () => Promise.resolve(),
    }
  }

  /**
   * An owner's status decides whether readers may see the records it owns (a content block
   * of an unpublished entry is hidden with it), so a status change is a change of each of
   * them too: the feed then shows them as deletes or again with a snapshot, and a mirror
   * follows (docs/sync.md). Their documents and updatedAt stay as they are.
   */
  private async recordOwnedOf(owner: Resource, ownerId: number): Promise<void> {
    const now = this.stamp()
    for (const o of this.resources.all) {
      if (o.owner?.type !== owner.type) continue
      for (const doc of await this.docsWhere(o.type, o.owner.column, ownerId)) {
        this.events.push({ resource: o, resourceId: doc.id as number, action: 'updated', occurredAt: now, updatedAt: Date.parse(doc.updatedAt as string), doc: splitSensitive(o, doc).doc, origin: SYSTEM_ORIGIN })
      }
    }
  }

  async remove(type: string, id: number, opts: { skipHooks?: boolean } = {}): Promise<void> {
    const r = this.resourceOrThrow(type)
    const previous = await this.get(type, id)
    if (!previous) throw notFound(`No ${type} record with id ${id}`)
    await this.derived(() => r.hooks?.beforeDelete?.(this, previous))
    await this.refuseIfReferenced(r, previous)
    await this.run(r, () => this.tx.deleteFrom(r.table).where('id', '=', id).execute())
    if (keepsTerms(r)) await deleteTerms(this.tx, r, id)
    const now = this.stamp()
    this.events.push({ resource: r, resourceId: id, action: 'deleted', occurredAt: now, updatedAt: now, doc: null, ...this.derivedOrigin() })
    this.dirty.get(type)?.delete(id)
    if (!opts.skipHooks) await this.derived(() => r.hooks?.afterWrite?.(this, null, previous))
  }

  /** Applies deferred derived refreshes, appends the change log and runs the hooks. */
  async flush(hooks: readonly ChangeHook[]): Promise<void> {
    for (const [type, ids] of this.dirty) for (const id of ids) await this.derived(() => this.rollup(type, id))
    this.dirty.clear()
    if (this.events.length === 0) return
    for (const e of this.events) e.origin ??= this.origin
    await appendChanges(this.tx, this.database.adapter, this.events, { commitOrderLock: this.options.commitOrderLock })
    for (const hook of hooks) await hook(this.tx, this.events)
    // At commit, other processes drop cached pages and wake their delivery workers
    // (src/store/change-signal.ts); the last sequence number versions their caches.
    await this.database.adapter.notifyChange(this.tx, String(this.events[this.events.length - 1].seq ?? 0))
  }

  private async rollup(type: string, id: number): Promise<void> {
    const r = this.resourceOrThrow(type)
    if (!r.hooks?.rollup) return
    // The record is locked before what it rolls up is read: a concurrent transaction that
    // changed another part either committed already (and this read sees it) or waits for
    // this one and then recomputes from both changes.
    const record = await this.get(type, id)
    if (!record) return
    const next: Doc = { ...record, ...(await r.hooks.rollup(this, record)), updatedAt: isoOf(this.stamp()) }
    await this.writeRow(r, next)
    this.record(r, next, 'updated')
  }

  private record(r: Resource, full: Doc, action: ChangeAction): void {
    const updatedAt = Date.parse(full.updatedAt as string)
    this.events.push({
      resource: r, resourceId: full.id as number, action, occurredAt: updatedAt, updatedAt,
      doc: splitSensitive(r, full).doc, ...this.derivedOrigin(),
    })
  }

  /** Hooks and rollups running: what they write is derived (see derivedOrigin). */
  private deriving = 0

  private async derived<T>(fn: () => Promise<T> | T | undefined): Promise<T | undefined> {
    this.deriving++
    try {
      return await fn()
    } finally {
      this.deriving--
    }
  }

  /**
   * Changes a family's hooks derive from a write (a product's totals after a variant's stock,
   * a cascade, an owner's blocks after its status) are the service's: `system`. The writer's
   * origin covers the records it wrote itself, so a two-way sync that leaves out its own
   * changes still reads what its writes changed elsewhere.
   */
  private derivedOrigin(): { origin?: ChangeOrigin } {
    return this.deriving > 0 ? { origin: SYSTEM_ORIGIN } : {}
  }

  private async writeRow(r: Resource, full: Doc): Promise<void> {
    const row = rowFor(r, this.database.adapter, full)
    delete row.uid
    delete row.created_at
    await this.run(r, () => this.tx.updateTable(r.table).set(row).where('id', '=', full.id as number).execute())
    if (keepsTerms(r)) {
      await deleteTerms(this.tx, r, full.id as number)
      await insertTerms(this.tx, r, [termSource(r, full)])
    }
  }

  /** Ids for new records, taken before insert so each document is written once. */
  private allocateIds(r: Resource, n: number): Promise<number[]> {
    return n === 0 ? Promise.resolve([]) : this.database.adapter.allocateIds(this.tx, r.table, n)
  }

  /**
   * A record other records still point at is not deleted (409 naming them): deleting it would
   * leave them dangling. Owned children that go with their owner (a product's variants) are
   * removed by the owner's derivation before this check.
   */
  private async refuseIfReferenced(target: Resource, previous: Doc, next?: Doc): Promise<void> {
    const referrers: ErrorDetail[] = []
    for (const { other, prop, ref } of this.referrers.get(target.type) ?? []) {
      const key = ref.by ?? 'id'
      // On an update, only a key others refer by that changes (a section's handle) matters.
      if (next !== undefined && previous[key] === next[key]) continue
      const value = previous[key]
      if (value === undefined || value === null) continue
      const row = await this.tx.selectFrom(other.table).select((eb) => eb.fn.countAll().as('n'))
        .where(this.propertyEquals(other, prop, value)).executeTakeFirst()
      const n = Number(row?.n ?? 0)
      if (n > 0) referrers.push({ param: `${other.type}.${prop}`, problem: `${n} ${other.type} record${n === 1 ? '' : 's'} still refer to it` })
    }
    if (referrers.length > 0) {
      const what = next === undefined ? '' : ` by the ${[...new Set((this.referrers.get(target.type) ?? []).map((x) => x.ref.by ?? 'id'))].filter((k) => previous[k] !== next[k]).join(', ')} it had`
      throw new ApiError('CONFLICT', `${target.type} ${String(previous.id)} is still referenced${what}; delete or change the referring records first`, referrers)
    }
  }

  /** `property = value`: indexed columns are compared directly; other properties live only in the document. */
  private propertyEquals(r: Resource, property: string, value: unknown) {
    return property in r.columns || property === 'id' ? sql<boolean>`${sql.ref(columnName(property))} = ${value}` : this.database.adapter.textAtEquals('doc', [property], value)
  }

  private async checkReferences(r: Resource, values: Doc): Promise<void> {
    const problems: ErrorDetail[] = []
    for (const [prop, ref] of Object.entries(r.references ?? {})) {
      const v = values[prop]
      if (v === undefined || v === null) continue
      const key = `${ref.type}.${ref.by ?? 'id'}`
      const known = this.knownRefs.get(key) ?? new Set()
      this.knownRefs.set(key, known)
      if (known.has(v)) continue
      const target = this.resourceOrThrow(ref.type)
      const found = await this.tx.selectFrom(target.table).select('id')
        .where(columnName(ref.by ?? 'id'), '=', v).executeTakeFirst()
      if (found) known.add(v)
      else problems.push({ param: prop, problem: `no ${ref.type} record with ${ref.by ?? 'id'} ${JSON.stringify(v)}` })
    }
    if (problems.length > 0) throw invalidMany(problems)
  }

  /** The declared property a unique-constraint violation is about (the last column of a composite one). */
  private uniqueViolationField(r: Resource, e: unknown): string | undefined {
    const columns = this.database.adapter.uniqueViolation(e, r.table)
    if (!columns) return undefined
    const column = columns[columns.length - 1] ?? 'id'
    return Object.keys(r.columns).find((p) => columnName(p) === column) ?? column
  }

  /** Maps unique-constraint violations to a 400 naming the field; other errors pass through. */
  private async run<T>(r: Resource, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (e) {
      const field = this.uniqueViolationField(r, e)
      if (field) throw invalid(field, 'already used by another record')
      throw e
    }
  }
}
