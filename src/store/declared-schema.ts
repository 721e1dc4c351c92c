// The table a resource declaration calls for: the base columns every family has, one column
// per indexed property, unique indexes (`unique`, `uniqueWith`) and the keyset indexes lists
// and sorts use. Schema reconciliation compares this with the database; the names and shapes
// are the ones migration 001 gave the first families, so their tables match as they are.
import type { ColumnType, Resource } from '../resources/declare.js'
import { columnName, type DialectAdapter } from './database.js'
import { keepsTerms, termsSignature, termsTableOf } from './record-terms.js'
import { sqlName } from './sql-quote.js'

export interface DeclaredColumn {
  /** The document property it mirrors. */
  readonly property: string
  readonly name: string
  readonly type: ColumnType
  readonly sqlType: string
  /** Where the property's value is stored: the public document or the sensitive part. */
  readonly source: 'doc' | 'sensitive'
}

export interface DeclaredIndex {
  readonly name: string
  /** Key columns, or for an expression index its key as the database reports it (`gatehouse_search_document(doc)`). */
  readonly columns: readonly string[]
  readonly unique: boolean
  /** Access method; B-tree unless said. */
  readonly method?: 'gin'
  /** Keys with their operator classes, for the search indexes (default: the columns). */
  readonly keys?: readonly { readonly sql: string; readonly opclass: string }[]
  /** Columns the index reads, where `columns` are expressions. */
  readonly reads?: readonly string[]
  /** An extension providing the operator class (created by the step that needs it). */
  readonly extension?: 'pg_trgm'
  /** Statistics target of its (expression) key, set when it is created. */
  readonly statistics?: number
  /** Built on the adapter's search document function, created by the step that needs it. */
  readonly searchDocument?: true
  /** Storage parameters (`fastupdate = off`), set when it is created. */
  readonly with?: string
}

/** Columns an index needs to exist before it can be built. */
export const indexReads = (i: DeclaredIndex) => i.reads ?? i.columns

export interface DeclaredTable {
  readonly resource: Resource
  readonly name: string
  readonly columns: readonly DeclaredColumn[]
  readonly indexes: readonly DeclaredIndex[]
  /** The family's exact-filter terms (src/store/record-terms.ts): served families only. */
  readonly terms?: DeclaredTermsTable
}

/**
 * `(term, updated_at, id)`, keyed in that order (page order per term); `indexes`: by id, for
 * rewrites, named with the signature of the rules that made the terms.
 */
export interface DeclaredTermsTable {
  readonly name: string
  readonly indexes: readonly DeclaredIndex[]
}

/** Columns every family table has, in table order; they are not declared per family. */
export const BASE_COLUMNS = ['id', 'uid', 'created_at', 'updated_at', 'doc', 'sensitive'] as const

export function sqlTypeOf(adapter: DialectAdapter, type: ColumnType): string {
  switch (type) {
    case 'integer': case 'timestamp': return adapter.bigintType
    case 'real': return adapter.doubleType
    case 'boolean': return adapter.booleanType
    case 'text': return 'text'
  }
}

export function declaredTable(r: Resource, adapter: DialectAdapter): DeclaredTable {
  const t = r.table
  const columns = Object.entries(r.columns).map(([property, c]): DeclaredColumn => ({
    property, name: columnName(property), type: c.type, sqlType: sqlTypeOf(adapter, c.type),
    source: r.sensitiveKeys.includes(property) ? 'sensitive' : 'doc',
  }))
  // Keyset order (updated_at, id) alone and after each equality column.
  const indexes: DeclaredIndex[] = [{ name: `${t}_updated`, columns: ['updated_at', 'id'], unique: false }]
  for (const [property, c] of Object.entries(r.columns)) {
    const col = columnName(property)
    if (c.unique) indexes.push({ name: `${t}_${col}_unique`, columns: [col], unique: true })
    else if (c.uniqueWith) indexes.push({ name: `${t}_${col}_unique`, columns: [...c.uniqueWith.map(columnName), col], unique: true })
    indexes.push({ name: `${t}_${col}_updated`, columns: [col, 'updated_at', 'id'], unique: false })
  }
  for (const key of r.sort?.allowed ?? []) {
    if (key === 'createdAt') indexes.push({ name: `${t}_created`, columns: ['created_at', 'id'], unique: false })
    else if (key !== 'updatedAt') indexes.push({ name: `${t}_${columnName(key)}_sort`, columns: [columnName(key), 'id'], unique: false })
  }
  if (adapter.searchIndexes && r.scope !== undefined) indexes.push(...searchIndexes(r, adapter))
  return { resource: r, name: t, columns, indexes, terms: keepsTerms(r) ? termsTable(r) : undefined }
}

function termsTable(r: Resource): DeclaredTermsTable {
  const name = termsTableOf(r)
  // Named after the rules that made the terms: other rules' terms are rebuilt (schema-plan.ts).
  return { name, indexes: [{ name: `${name}_id_${termsSignature(r)}`, columns: ['id'], unique: false }] }
}

export const createTermsTableSql = (t: DeclaredTermsTable, adapter: DialectAdapter) => `CREATE TABLE ${sqlName(t.name)} (
    term text NOT NULL,
    updated_at ${adapter.bigintType} NOT NULL,
    id ${adapter.bigintType} NOT NULL,
    PRIMARY KEY (term, updated_at, id)
  )`

/**
 * The indexes `filter` and `q` use where B-trees cannot (PostgreSQL): a GIN index of the
 * document as jsonb, which answers an exact match at any path (`jsonb @>`, see
 * record-conditions.ts), and a trigram index per search column, which answers `~` contains
 * and `q` (ILIKE). Served families only: nothing filters the others.
 */
function searchIndexes(r: Resource, adapter: DialectAdapter): DeclaredIndex[] {
  const t = r.table
  const key = adapter.searchDocument('doc')
  const out: DeclaredIndex[] = [{
    name: `${t}_doc_search`, columns: [key], unique: false, method: 'gin',
    keys: [{ sql: key, opclass: 'jsonb_path_ops' }], reads: ['doc'], searchDocument: true,
    // The planner estimates a containment by testing it on a sample of documents: with the
    // default 100 a rare value looks like 1% of the rows and the index is passed over for a
    // walk in keyset order that reads most of the table.
    statistics: 1000,
    // Inserts go straight into the index instead of a pending list that only VACUUM merges:
    // the planner costs a GIN scan by that list too, and after a bulk load (an import, a
    // seed) it would prefer a sequential scan until autovacuum came by.
    with: 'fastupdate = off',
  }]
  for (const property of r.searchColumns ?? []) {
    const col = columnName(property)
    out.push({ name: `${t}_${col}_trgm`, columns: [col], unique: false, method: 'gin', keys: [{ sql: sqlName(col), opclass: 'gin_trgm_ops' }], extension: 'pg_trgm', with: 'fastupdate = off' })
  }
  return out
}

const quoted = (names: readonly string[]) => names.map(sqlName).join(', ')

export function createTableSql(t: DeclaredTable, adapter: DialectAdapter): string {
  const cols = t.columns.map((c) => `,\n    ${sqlName(c.name)} ${c.sqlType}`).join('')
  return `CREATE TABLE ${sqlName(t.name)} (
    id ${adapter.idColumnType},
    uid text NOT NULL UNIQUE,
    created_at ${adapter.bigintType} NOT NULL,
    updated_at ${adapter.bigintType} NOT NULL,
    doc ${adapter.jsonType} NOT NULL,
    sensitive ${adapter.jsonType}${cols}
  )`
}

export const addColumnSql = (table: string, c: DeclaredColumn) => `ALTER TABLE ${sqlName(table)} ADD COLUMN ${sqlName(c.name)} ${c.sqlType}`

/** `extensionSchema`: where the index's extension lives (its operator class is named there). */
export const createIndexSql = (table: string, i: DeclaredIndex, extensionSchema?: string) => i.keys
  ? `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${sqlName(i.name)} ON ${sqlName(table)} USING ${i.method ?? 'btree'} (${i.keys.map((k) => `${k.sql} ${i.extension && extensionSchema ? `${sqlName(extensionSchema)}.` : ''}${k.opclass}`).join(', ')})${i.with ? ` WITH (${i.with})` : ''}`
  : `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${sqlName(i.name)} ON ${sqlName(table)} (${quoted(i.columns)})`

export const dropIndexSql = (name: string) => `DROP INDEX ${sqlName(name)}`

export const indexStatisticsSql = (i: DeclaredIndex) => `ALTER INDEX ${sqlName(i.name)} ALTER COLUMN 1 SET STATISTICS ${Math.trunc(i.statistics ?? -1)}`

export const dropColumnSql = (table: string, column: string) => `ALTER TABLE ${sqlName(table)} DROP COLUMN ${sqlName(column)}`
