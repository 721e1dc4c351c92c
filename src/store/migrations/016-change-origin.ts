// Who caused each change (docs/sync.md): the kind of writer (admin, credential, control,
// import, job, system), the machine credential it acted for, and the execution or run id.
// Rows written before this migration were all made by the service itself or an operator;
// they read as `system`, the one kind that claims nothing about a credential.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const changeOrigin: Migration = {
  name: '016-change-origin',
  async up(db) {
    await sql.raw(`ALTER TABLE change_log ADD COLUMN origin_kind text NOT NULL DEFAULT 'system'`).execute(db)
    await sql.raw(`ALTER TABLE change_log ADD COLUMN origin_credential text`).execute(db)
    await sql.raw(`ALTER TABLE change_log ADD COLUMN origin_ref text`).execute(db)
  },
}
