// The content store as first released: one table per resource family, the change log and a
// key/value meta table. Frozen history: the families and their indexed columns are written
// out here as they were declared then, never read from src/resources/. A declaration that
// changes later is brought to the database by schema reconciliation (schema-reconcile.ts),
// so old and new databases end up with the same tables.
import { sql } from 'kysely'
import type { Db, DialectAdapter } from '../database.js'
import type { Migration } from './migration.js'

type FrozenType = 'text' | 'bigint' | 'boolean'
/** [column, type, unique-with]: a third element makes the column unique together with those columns ([] alone). */
type FrozenColumn = readonly [name: string, type: FrozenType, uniqueWith?: readonly string[]]

interface FrozenFamily {
  readonly table: string
  /** Indexed columns in table order. */
  readonly columns: readonly FrozenColumn[]
  /** Sort keys other than updated_at, each with a keyset index (`created_at` or a column). */
  readonly sorts?: readonly string[]
}

const families: readonly FrozenFamily[] = [
  { table: 'products', columns: [['type', 'text'], ['title', 'text'], ['slug', 'text', []], ['status', 'text'], ['has_unlimited_stock', 'boolean'], ['total_stock', 'bigint'], ['default_sku', 'text']], sorts: ['created_at', 'title'] },
  { table: 'variants', columns: [['product_id', 'bigint'], ['sku', 'text', []], ['title', 'text'], ['status', 'text']] },
  { table: 'subscriptions', columns: [['reference', 'text', []], ['user_id', 'bigint'], ['plan_id', 'bigint'], ['status', 'text']] },
  { table: 'transfers', columns: [['status', 'text'], ['origin_location_id', 'bigint'], ['destination_location_id', 'bigint'], ['reference', 'text']] },
  { table: 'donations', columns: [['sku', 'text', []], ['title', 'text'], ['status', 'text']] },
  { table: 'orders', columns: [['number', 'text', []], ['reference', 'text'], ['status', 'text'], ['date_ordered', 'bigint']] },
  { table: 'entries', columns: [['section', 'text'], ['type', 'text'], ['title', 'text'], ['slug', 'text', ['section']], ['status', 'text'], ['author_id', 'bigint']] },
  { table: 'assets', columns: [['volume', 'text'], ['folder', 'text'], ['filename', 'text', ['volume', 'folder']], ['kind', 'text']] },
  { table: 'categories', columns: [['group', 'text'], ['title', 'text'], ['slug', 'text', ['group']]] },
  { table: 'tags', columns: [['group', 'text'], ['title', 'text'], ['slug', 'text', ['group']]] },
  { table: 'global_sets', columns: [['handle', 'text', []], ['name', 'text']] },
  { table: 'addresses', columns: [['owner_id', 'bigint'], ['title', 'text'], ['country_code', 'text'], ['postal_code', 'text'], ['locality', 'text']] },
  { table: 'content_blocks', columns: [['owner_id', 'bigint'], ['field_id', 'bigint'], ['type', 'text']] },
  { table: 'users', columns: [['username', 'text', []], ['full_name', 'text'], ['status', 'text']] },
  { table: 'sections', columns: [['handle', 'text', []], ['name', 'text'], ['type', 'text']] },
  { table: 'locations', columns: [['handle', 'text', []], ['name', 'text']] },
  { table: 'entry_drafts', columns: [['entry_id', 'bigint'], ['name', 'text', ['entry_id']]] },
]

function sqlType(adapter: DialectAdapter, type: FrozenType): string {
  return type === 'bigint' ? adapter.bigintType : type === 'boolean' ? adapter.booleanType : 'text'
}

async function createFamilyTable(db: Db, adapter: DialectAdapter, f: FrozenFamily): Promise<void> {
  const t = f.table
  const cols = f.columns.map(([name, type]) => `"${name}" ${sqlType(adapter, type)}`)
  await sql.raw(`CREATE TABLE "${t}" (
    id ${adapter.idColumnType},
    uid text NOT NULL UNIQUE,
    created_at ${adapter.bigintType} NOT NULL,
    updated_at ${adapter.bigintType} NOT NULL,
    doc ${adapter.jsonType} NOT NULL,
    sensitive ${adapter.jsonType}${cols.length ? ',\n    ' + cols.join(',\n    ') : ''}
  )`).execute(db)
  // Keyset order (updated_at, id) alone and after each equality column.
  await sql.raw(`CREATE INDEX "${t}_updated" ON "${t}" (updated_at, id)`).execute(db)
  for (const [col, , uniqueWith] of f.columns) {
    if (uniqueWith) {
      const all = [...uniqueWith, col].map((x) => `"${x}"`).join(', ')
      await sql.raw(`CREATE UNIQUE INDEX "${t}_${col}_unique" ON "${t}" (${all})`).execute(db)
    }
    await sql.raw(`CREATE INDEX "${t}_${col}_updated" ON "${t}" ("${col}", updated_at, id)`).execute(db)
  }
  for (const key of f.sorts ?? []) {
    if (key === 'created_at') await sql.raw(`CREATE INDEX "${t}_created" ON "${t}" (created_at, id)`).execute(db)
    else await sql.raw(`CREATE INDEX "${t}_${key}_sort" ON "${t}" ("${key}", id)`).execute(db)
  }
}

export const contentStore: Migration = {
  name: '001-content-store',
  async up(db, adapter) {
    for (const f of families) await createFamilyTable(db, adapter, f)
    await sql.raw(`CREATE TABLE change_log (
      seq ${adapter.idColumnType},
      resource_type text NOT NULL,
      resource_id ${adapter.bigintType} NOT NULL,
      action text NOT NULL,
      occurred_at ${adapter.bigintType} NOT NULL,
      updated_at ${adapter.bigintType} NOT NULL
    )`).execute(db)
    await sql.raw(`CREATE INDEX change_log_type_seq ON change_log (resource_type, seq)`).execute(db)
    await sql.raw(`CREATE INDEX change_log_occurred ON change_log (occurred_at)`).execute(db)
    await sql.raw(`CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)`).execute(db)
  },
}
