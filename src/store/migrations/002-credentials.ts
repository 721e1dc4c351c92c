// Managed credentials: tokens stored only as SHA-256 digests.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const credentials: Migration = {
  name: '002-credentials',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE credentials (
      id text PRIMARY KEY,
      label text NOT NULL,
      token_digest text NOT NULL UNIQUE,
      token_hint text NOT NULL,
      scopes ${adapter.jsonType} NOT NULL,
      ip_allowlist ${adapter.jsonType},
      webhook_interests ${adapter.jsonType},
      boundaries ${adapter.jsonType},
      status text NOT NULL,
      expires_at ${big},
      created_at ${big} NOT NULL,
      rotated_at ${big},
      last_used_at ${big},
      first_used_at ${big}
    )`).execute(db)
    await sql.raw(`CREATE TABLE admins (
      username text PRIMARY KEY,
      password_hash text NOT NULL,
      created_at ${big} NOT NULL
    )`).execute(db)
  },
}
