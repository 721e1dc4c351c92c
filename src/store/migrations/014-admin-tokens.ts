// Managed admin API tokens (`gatehouse admin token create/list/revoke`): stored only as
// SHA-256 digests, like machine credentials; revoked tokens stay listed.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const adminTokens: Migration = {
  name: '014-admin-tokens',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE admin_tokens (
      id text PRIMARY KEY,
      label text NOT NULL,
      token_digest text NOT NULL UNIQUE,
      token_hint text NOT NULL,
      created_by text NOT NULL,
      created_at ${big} NOT NULL,
      last_used_at ${big},
      revoked_at ${big}
    )`).execute(db)
  },
}
