// MCP sessions (src/mcp/mcp-sessions.ts), kept in the database so any serving process
// continues a session another one started. A row binds a session to the credential that
// opened it and keeps the client's name and version from `initialize`; only a digest of the
// session id is stored.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const mcpSessions: Migration = {
  name: '015-mcp-sessions',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE mcp_sessions (
      id_digest text PRIMARY KEY,
      credential_id text NOT NULL,
      client_name text NOT NULL,
      client_version text NOT NULL,
      created_at ${big} NOT NULL,
      last_seen_at ${big} NOT NULL
    )`).execute(db)
    await sql.raw(`CREATE INDEX mcp_sessions_last_seen ON mcp_sessions (last_seen_at)`).execute(db)
  },
}
