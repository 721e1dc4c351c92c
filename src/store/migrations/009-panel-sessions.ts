// The control panel's state that must hold across processes: admin sessions (only a
// digest of each session id is stored, so a copy of the database opens no session) and
// the login throttle's failure counters per address and per username.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const panelSessions: Migration = {
  name: '009-panel-sessions',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE panel_sessions (
      id_digest text PRIMARY KEY,
      username text NOT NULL,
      csrf_token text NOT NULL,
      created_at ${big} NOT NULL,
      last_seen_at ${big} NOT NULL,
      expires_at ${big} NOT NULL,
      flash text
    )`).execute(db)
    await sql.raw(`CREATE INDEX panel_sessions_expires ON panel_sessions (expires_at)`).execute(db)
    await sql.raw(`CREATE INDEX panel_sessions_username ON panel_sessions (username)`).execute(db)
    await sql.raw(`CREATE TABLE panel_login_throttle (
      throttle_key text PRIMARY KEY,
      failures integer NOT NULL,
      window_started_at ${big} NOT NULL
    )`).execute(db)
  },
}
