// The record of schema steps: each change schema reconciliation made to bring a resource
// family's table in line with its declaration (a table, a column filled from the stored
// documents, an index, a column dropped on the operator's request), with when it ran.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const schemaSteps: Migration = {
  name: '011-schema-steps',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE schema_steps (
      id ${adapter.idColumnType},
      resource_type text NOT NULL,
      kind text NOT NULL,
      target text NOT NULL,
      description text NOT NULL,
      rows_filled ${big} NOT NULL,
      applied_at ${big} NOT NULL
    )`).execute(db)
  },
}
