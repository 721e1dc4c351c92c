// Behaviour that only one family has (a product's stock from its variants, a category's
// level, an order's totals) is declared on the family as hooks; the content store's write
// service runs them inside the write transaction and names no family itself.

/** A record as the write service handles it: public and sensitive properties together. */
export type Doc = Record<string, unknown>

/** What a hook may do with the write transaction it runs in. */
export interface RecordWriter {
  get(type: string, id: number): Promise<Doc | undefined>
  /** Records of `type` whose `property` equals `value`, ordered by id (indexed columns compared directly, others in the document). */
  docsWhere(type: string, property: string, value: unknown): Promise<Doc[]>
  idsWhere(type: string, property: string, value: unknown): Promise<number[]>
  /** Writes `patch` to a record through its family's hooks, as any update (a category's children follow its level). */
  update(type: string, id: number, patch: Doc): Promise<Doc>
  /** Deletes a record; `skipHooks` leaves out its afterWrite (the caller cascades itself). */
  remove(type: string, id: number, opts?: { skipHooks?: boolean }): Promise<void>
  /** Runs `type`'s `rollup` for record `id` once, at the end of the transaction. */
  markDirty(type: string, id: number): void
  /**
   * Waits until no other transaction holds lock `key`, then holds it to the end of this one
   * (PostgreSQL; SQLite's writers take turns already): for a rule across records that no
   * index holds, which two transactions would otherwise both pass.
   */
  takeTurns(key: number): Promise<void>
}

export interface FamilyHooks {
  /** Computes derived fields of `next` in place (`previous` is the stored version on update). */
  beforeWrite?(w: RecordWriter, next: Doc, previous: Doc | undefined, write?: { readonly restore: boolean }): Promise<void> | void
  /** Cascades after the record was written or deleted (`next` null on delete). */
  afterWrite?(w: RecordWriter, next: Doc | null, previous: Doc | undefined): Promise<void> | void
  beforeDelete?(w: RecordWriter, previous: Doc): Promise<void> | void
  /**
   * Fields recomputed from other records at the end of the transaction, once per record
   * however many changes asked for it (see `markDirty`). The record is locked first.
   */
  rollup?(w: RecordWriter, record: Doc): Promise<Doc>
}
