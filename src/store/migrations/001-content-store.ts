// The content store: one table per resource family (columns derived from the
// declarations), the change log and a key/value meta table.
import { sql } from 'kysely'
import { allResources } from '../../resources/index.js'
import type { Resource } from '../../resources/declare.js'
import { columnName, type Db, type DialectAdapter } from '../database.js'
import type { Migration } from './index.js'

function columnSqlType(adapter: DialectAdapter, type: string): string {
  switch (type) {
    case 'integer': case 'timestamp': return adapter.bigintType
    case 'real': return adapter.name === 'sqlite' ? 'real' : 'double precision'
    case 'boolean': return adapter.booleanType
    default: return 'text'
  }
}

async function createResourceTable(db: Db, adapter: DialectAdapter, r: Resource): Promise<void> {
  const cols = Object.entries(r.columns).map(([name, c]) => `"${columnName(name)}" ${columnSqlType(adapter, c.type)}`)
  await sql.raw(`CREATE TABLE "${r.table}" (
    id ${adapter.idColumnType},
    uid text NOT NULL UNIQUE,
    created_at ${adapter.bigintType} NOT NULL,
    updated_at ${adapter.bigintType} NOT NULL,
    doc ${adapter.jsonType} NOT NULL,
    sensitive ${adapter.jsonType}${cols.length ? ',\n    ' + cols.join(',\n    ') : ''}
  )`).execute(db)
  const t = r.table
  // Keyset order (updated_at, id) alone and after each equality column.
  await sql.raw(`CREATE INDEX "${t}_updated" ON "${t}" (updated_at, id)`).execute(db)
  for (const [name, c] of Object.entries(r.columns)) {
    const col = columnName(name)
    if (c.unique) {
      await sql.raw(`CREATE UNIQUE INDEX "${t}_${col}_unique" ON "${t}" ("${col}")`).execute(db)
    } else if (c.uniqueWith) {
      const all = [...c.uniqueWith.map(columnName), col].map((x) => `"${x}"`).join(', ')
      await sql.raw(`CREATE UNIQUE INDEX "${t}_${col}_unique" ON "${t}" (${all})`).execute(db)
    }
    await sql.raw(`CREATE INDEX "${t}_${col}_updated" ON "${t}" ("${col}", updated_at, id)`).execute(db)
  }
  if (r.sort) {
    for (const key of r.sort.allowed) {
      if (key === 'createdAt') await sql.raw(`CREATE INDEX "${t}_created" ON "${t}" (created_at, id)`).execute(db)
      else if (key !== 'updatedAt') await sql.raw(`CREATE INDEX "${t}_${columnName(key)}_sort" ON "${t}" ("${columnName(key)}", id)`).execute(db)
    }
  }
}

export const contentStore: Migration = {
  name: '001-content-store',
  async up(db, adapter) {
    for (const r of allResources) await createResourceTable(db, adapter, r)
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
