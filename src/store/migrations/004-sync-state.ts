// Sync checkpoints, one per (integrationKey, resourceType). The cursor's change-log position
// is kept beside the opaque cursor so lag is one indexed count, not a decode per read.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const syncState: Migration = {
  name: '004-sync-state',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE sync_checkpoints (
      integration_key text NOT NULL,
      resource_type text NOT NULL,
      cursor text,
      cursor_seq ${big},
      updated_since ${big},
      checkpoint_at ${big} NOT NULL,
      metadata ${adapter.jsonType},
      credential_id text NOT NULL,
      written_at ${big} NOT NULL,
      PRIMARY KEY (integration_key, resource_type)
    )`).execute(db)
  },
}
