// Request states of approval round trips (src/control/round-trip-uses.ts): an agent on MCP
// 2026-07-28 retries its call with the signed state the server handed out, and each state
// may be used once, whichever process receives the retry. A row records a state's id when
// it is used; the primary key is what refuses a second use. Rows go once the state expired.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const controlRoundTrips: Migration = {
  name: '018-control-round-trips',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE control_round_trip_uses (
      state_id text PRIMARY KEY,
      approval_id text NOT NULL,
      credential_id text NOT NULL,
      expires_at ${big} NOT NULL,
      used_at ${big} NOT NULL
    )`).execute(db)
    await sql.raw(`CREATE INDEX control_round_trip_uses_expiry ON control_round_trip_uses (expires_at)`).execute(db)
  },
}
