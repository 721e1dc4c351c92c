// Compares resource declarations with what the database has and says what reconciliation
// would do: steps it may take on its own (create what is missing; nothing stored is lost or
// rewritten), and problems it must not solve on its own (a column no longer declared, a
// column of another type), each named with the family, the column and what to do.
import type { Resource } from '../resources/declare.js'
import type { ColumnInfo, DialectAdapter, IndexInfo, TableInfo } from './database.js'
import { BASE_COLUMNS, declaredTable, indexReads, type DeclaredColumn, type DeclaredIndex, type DeclaredTable, type DeclaredTermsTable } from './declared-schema.js'

export type SchemaStepKind = 'create-table' | 'create-terms' | 'rebuild-terms' | 'add-column' | 'create-index' | 'rebuild-index' | 'drop-index' | 'drop-column'

export interface SchemaStep {
  readonly resourceType: string
  readonly kind: SchemaStepKind
  /** `table`, `table.column` or the index name. */
  readonly target: string
  readonly description: string
  /** How much it matters while not done (readiness): a missing table, column or unique index fails. */
  readonly severity: 'fail' | 'warn'
  readonly table: DeclaredTable
  /** The step is on the family's terms table (created and filled, or rebuilt). */
  readonly terms?: DeclaredTermsTable
  readonly column?: DeclaredColumn
  /** Indexes to create (after the column is added and filled). */
  readonly indexes: readonly DeclaredIndex[]
  /** Live indexes to drop first (a rebuilt or undeclared index; those on a dropped column). */
  readonly dropIndexes: readonly string[]
  readonly dropColumn?: string
}

export type SchemaProblemKind = 'removed-column' | 'retyped-column' | 'missing-base-column'

export interface SchemaProblem {
  readonly resourceType: string
  readonly kind: SchemaProblemKind
  readonly table: string
  readonly column: string
  readonly severity: 'fail' | 'warn'
  readonly message: string
}

export interface SchemaPlan {
  readonly steps: readonly SchemaStep[]
  readonly problems: readonly SchemaProblem[]
}

export interface PlanOptions {
  /**
   * Drop columns of family tables that no declaration has any more (and their indexes)
   * instead of stopping. Their values stay in each record's stored document.
   */
  readonly dropRemoved?: boolean
}

export function planSchema(live: readonly TableInfo[], resources: readonly Resource[], adapter: DialectAdapter, opts: PlanOptions = {}): SchemaPlan {
  const byName = new Map(live.map((t) => [t.name, t]))
  const steps: SchemaStep[] = []
  const problems: SchemaProblem[] = []
  for (const r of resources) {
    const declared = declaredTable(r, adapter)
    const table = byName.get(declared.name)
    if (!table) {
      steps.push({
        resourceType: r.type, kind: 'create-table', target: declared.name, severity: 'fail', table: declared,
        description: `create table ${declared.name} (${declared.columns.length} indexed column(s), ${declared.indexes.length} index(es))`,
        indexes: declared.indexes, dropIndexes: [],
      })
    } else {
      planTable(declared, table, opts, steps, problems)
    }
    if (declared.terms) planTerms(declared, declared.terms, byName.get(declared.terms.name), steps)
  }
  return { steps, problems }
}

/** The family's terms table: created and filled from the stored documents, or rebuilt from them. */
function planTerms(declared: DeclaredTable, terms: DeclaredTermsTable, live: TableInfo | undefined, steps: SchemaStep[]): void {
  const r = declared.resource
  if (!live) {
    steps.push({
      resourceType: r.type, kind: 'create-terms', target: terms.name, severity: 'fail', table: declared, terms,
      description: `create table ${terms.name} (the exact-filter terms of ${declared.name}), filled from each record's document`,
      indexes: terms.indexes, dropIndexes: [],
    })
    return
  }
  // The id index is named after the rules that made the terms (record-terms.ts): without it
  // the terms were made by other rules (a column added or dropped, another version) and could
  // miss matches, so they are written again from the documents.
  if (terms.indexes.every((i) => live.indexes.some((x) => x.name === i.name))) return
  steps.push({
    resourceType: r.type, kind: 'rebuild-terms', target: terms.name, severity: 'fail', table: declared, terms,
    description: `rebuild table ${terms.name} (the exact-filter terms of ${declared.name}, made by other rules), refilled from each record's document`,
    indexes: terms.indexes, dropIndexes: live.indexes.filter((x) => !x.name.endsWith('_pkey') && !x.name.startsWith('sqlite_')).map((x) => x.name),
  })
}

function planTable(declared: DeclaredTable, table: TableInfo, opts: PlanOptions, steps: SchemaStep[], problems: SchemaProblem[]): void {
  const r = declared.resource
  const t = declared.name
  const liveColumns = new Map(table.columns.map((c) => [c.name, c]))
  const liveIndexes = new Map(table.indexes.map((i) => [i.name, i]))
  const problem = (kind: SchemaProblemKind, column: string, severity: 'fail' | 'warn', message: string) =>
    problems.push({ resourceType: r.type, kind, table: t, column, severity, message: `${r.type}: ${message}` })

  for (const base of BASE_COLUMNS) {
    if (!liveColumns.has(base)) {
      problem('missing-base-column', base, 'fail', `table ${t} has no column "${base}", which every resource table needs; it was made or changed outside Gatehouse. Point the family at another table, or restore ${t} from a backup`)
    }
  }
  const declaredNames = new Set<string>([...BASE_COLUMNS, ...declared.columns.map((c) => c.name)])
  // Columns no declaration has any more: their values are copies of document properties.
  const removed = table.columns.filter((c) => !declaredNames.has(c.name)).map((c) => c.name)
  for (const col of removed) {
    if (opts.dropRemoved) {
      steps.push({
        resourceType: r.type, kind: 'drop-column', target: `${t}.${col}`, severity: 'warn', table: declared,
        description: `drop column ${t}.${col}, no longer declared (its values stay in the stored documents)`,
        indexes: [], dropIndexes: table.indexes.filter((i) => i.columns.includes(col)).map((i) => i.name), dropColumn: col,
      })
    } else {
      problem('removed-column', col, 'warn', `column "${col}" of table ${t} is no longer declared. Its values are also in each record's stored document: run \`gatehouse migrate --drop-removed\` to drop the column (a recorded schema step), or declare it again`)
    }
  }

  const willExist = new Set(table.columns.map((c) => c.name))
  const pendingIndexes = new Set<string>()
  for (const c of declared.columns) {
    const live = liveColumns.get(c.name)
    if (live) {
      if (!sameType(live, c)) {
        problem('retyped-column', c.name, 'fail', `column "${c.name}" (${c.property}) of table ${t} is ${live.type} in the database but declared ${c.type} (${c.sqlType}). Gatehouse does not convert columns: declare it with its old type again, or remove it from the declaration, run \`gatehouse migrate --drop-removed\`, then declare it with the new type (it is added again and filled from the stored documents)`)
      }
      continue
    }
    // The column's own indexes are created in the same step, once it is filled.
    const indexes = declared.indexes.filter((i) => indexReads(i).includes(c.name) && indexReads(i).every((x) => x === c.name || willExist.has(x)))
    indexes.forEach((i) => pendingIndexes.add(i.name))
    willExist.add(c.name)
    steps.push({
      resourceType: r.type, kind: 'add-column', target: `${t}.${c.name}`, severity: 'fail', table: declared, column: c,
      description: `add column ${t}.${c.name} (${c.sqlType}), filled from each record's ${c.source === 'doc' ? 'document' : 'sensitive part'}.${c.property}${indexes.length ? `, with ${indexes.map((i) => i.name).join(', ')}` : ''}`,
      indexes, dropIndexes: [],
    })
  }

  for (const i of declared.indexes) {
    if (pendingIndexes.has(i.name)) continue
    if (!indexReads(i).every((x) => willExist.has(x))) continue
    const live = liveIndexes.get(i.name)
    if (!live) {
      steps.push({
        resourceType: r.type, kind: 'create-index', target: i.name, severity: i.unique ? 'fail' : 'warn', table: declared,
        description: `create ${i.unique ? 'unique ' : ''}${i.method ? `${i.method} ` : ''}index ${i.name} on ${t} (${i.columns.join(', ')})`, indexes: [i], dropIndexes: [],
      })
    } else if (!sameIndex(live, i)) {
      steps.push({
        resourceType: r.type, kind: 'rebuild-index', target: i.name, severity: i.unique || live.unique ? 'fail' : 'warn', table: declared,
        description: `rebuild index ${i.name} on ${t}: ${describeIndex(live)} becomes ${describeIndex(i)}`, indexes: [i], dropIndexes: [i.name],
      })
    }
  }

  // A unique index of the family's naming that no declaration asks for any more still
  // refuses writes the declaration allows; it holds no data, so it is dropped.
  const declaredIndexNames = new Set(declared.indexes.map((i) => i.name))
  for (const live of table.indexes) {
    if (!live.unique || declaredIndexNames.has(live.name) || !live.name.startsWith(`${t}_`) || !live.name.endsWith('_unique')) continue
    if (live.columns.some((c) => removed.includes(c))) continue // goes with its column, or the column's problem stops first
    steps.push({
      resourceType: r.type, kind: 'drop-index', target: live.name, severity: 'warn', table: declared,
      description: `drop unique index ${live.name} on ${t} (${live.columns.join(', ')}): no longer declared`, indexes: [], dropIndexes: [live.name],
    })
  }
}

function sameType(live: ColumnInfo, c: DeclaredColumn): boolean {
  return live.type === c.sqlType.toLowerCase()
}

function sameIndex(live: IndexInfo, i: DeclaredIndex): boolean {
  return live.unique === i.unique && live.where === null && live.columns.join(',') === i.columns.join(',') && live.method === (i.method ?? 'btree')
}

const describeIndex = (i: { unique: boolean; columns: readonly string[]; method?: string }) =>
  `${i.unique ? 'unique ' : ''}${i.method && i.method !== 'btree' ? `${i.method} ` : ''}(${i.columns.join(', ')})`

/** One line per way the database differs from the declarations (readiness, diagnostics). */
export interface SchemaDifference {
  readonly resourceType: string
  readonly kind: SchemaStepKind | SchemaProblemKind
  readonly severity: 'fail' | 'warn'
  readonly message: string
}

export function differencesOf(plan: SchemaPlan): SchemaDifference[] {
  return [
    ...plan.problems.map((p) => ({ resourceType: p.resourceType, kind: p.kind, severity: p.severity, message: p.message })),
    ...plan.steps.map((s) => ({ resourceType: s.resourceType, kind: s.kind, severity: s.severity, message: `${s.resourceType}: not yet done: ${s.description}; run gatehouse migrate` })),
  ]
}
