// The OAuth authorization server's state (src/oauth/, docs/mcp.md "Sign-in for agents"), in
// the Gatehouse database so every serving process answers for it and nothing is lost on a
// restart. `oauth_models` holds what the oidc-provider library persists (authorization codes,
// access and refresh tokens, grants, sessions, interactions, registered clients), keyed by
// the SHA-256 digest of the model's id: for tokens and codes the id is the secret itself, so
// no stored value can be replayed. `oauth_clients` remembers each client the consent page
// shows (name, metadata document URL, first seen); `oauth_grants` links a grant to the
// managed credential an operator's consent created.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const oauth: Migration = {
  name: '017-oauth',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE oauth_models (
      model text NOT NULL,
      id_digest text NOT NULL,
      payload text NOT NULL,
      grant_id text,
      uid text,
      expires_at ${big},
      consumed_at ${big},
      PRIMARY KEY (model, id_digest)
    )`).execute(db)
    await sql.raw(`CREATE INDEX oauth_models_grant ON oauth_models (grant_id)`).execute(db)
    await sql.raw(`CREATE INDEX oauth_models_uid ON oauth_models (uid)`).execute(db)
    await sql.raw(`CREATE INDEX oauth_models_expires ON oauth_models (expires_at)`).execute(db)
    await sql.raw(`CREATE TABLE oauth_clients (
      client_id text PRIMARY KEY,
      kind text NOT NULL,
      client_name text,
      metadata text NOT NULL,
      fetched_at ${big},
      first_seen_at ${big} NOT NULL
    )`).execute(db)
    await sql.raw(`CREATE TABLE oauth_grants (
      grant_id text PRIMARY KEY,
      credential_id text NOT NULL,
      client_id text NOT NULL,
      granted_by text NOT NULL,
      created_at ${big} NOT NULL,
      updated_at ${big} NOT NULL
    )`).execute(db)
    await sql.raw(`CREATE INDEX oauth_grants_credential ON oauth_grants (credential_id)`).execute(db)
  },
}
