// The control plane (DESIGN §8): policies, approvals, executions and the append-only,
// hash-chained audit log with its head row (the head makes deleting the newest records
// detectable, which the chain alone cannot show).
import { sql } from 'kysely'
import type { Migration } from './migration.js'

/** prevHash of the first audit record. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64)

export const controlPlane: Migration = {
  name: '008-control-plane',
  async up(db, adapter) {
    const big = adapter.bigintType
    const bool = adapter.booleanType
    await sql.raw(`CREATE TABLE control_policies (
      handle text PRIMARY KEY,
      display_name text NOT NULL,
      action_pattern text NOT NULL,
      enabled ${bool} NOT NULL,
      requires_approval ${bool} NOT NULL,
      risk_level text,
      required_approvals integer,
      required_scope text,
      approval_ttl_minutes double precision NOT NULL,
      limits text NOT NULL,
      created_at ${big} NOT NULL,
      updated_at ${big} NOT NULL,
      updated_by text NOT NULL
    )`).execute(db)

    await sql.raw(`CREATE TABLE control_approvals (
      id text PRIMARY KEY,
      action_type text NOT NULL,
      payload text NOT NULL,
      payload_digest text NOT NULL,
      status text NOT NULL,
      risk_level text NOT NULL,
      required_approvals integer NOT NULL,
      policy_handle text NOT NULL,
      requester_type text NOT NULL,
      requester_id text NOT NULL,
      metadata text NOT NULL,
      reason text,
      target_type text,
      target_id text,
      decisions text NOT NULL,
      version integer NOT NULL,
      created_at ${big} NOT NULL,
      expires_at ${big} NOT NULL,
      decided_at ${big},
      consumed_at ${big},
      execution_id text
    )`).execute(db)
    await sql.raw(`CREATE INDEX control_approvals_created ON control_approvals (created_at, id)`).execute(db)
    await sql.raw(`CREATE INDEX control_approvals_requester ON control_approvals (requester_id, created_at)`).execute(db)
    // The expiry timer scans only what can still expire.
    await sql.raw(`CREATE INDEX control_approvals_expiring ON control_approvals (expires_at) WHERE status IN ('pending', 'approved')`).execute(db)

    await sql.raw(`CREATE TABLE control_executions (
      id text PRIMARY KEY,
      credential_id text NOT NULL,
      idempotency_key text NOT NULL,
      request_digest text NOT NULL,
      action_type text NOT NULL,
      status text NOT NULL,
      reasons text NOT NULL,
      approval_id text,
      payload text NOT NULL,
      payload_digest text NOT NULL,
      policy_handle text NOT NULL,
      risk_level text NOT NULL,
      target_type text,
      target_id text,
      result text,
      steps text NOT NULL,
      error text,
      metadata text,
      request_id text,
      created_at ${big} NOT NULL
    )`).execute(db)
    // Idempotency keys are per credential; the index is what makes a concurrent reuse lose.
    await sql.raw(`CREATE UNIQUE INDEX control_executions_idempotency ON control_executions (credential_id, idempotency_key)`).execute(db)
    await sql.raw(`CREATE INDEX control_executions_created ON control_executions (created_at, id)`).execute(db)

    await sql.raw(`CREATE TABLE control_audit (
      id ${big} PRIMARY KEY,
      at ${big} NOT NULL,
      category text NOT NULL,
      action text NOT NULL,
      outcome text NOT NULL,
      actor_type text NOT NULL,
      actor_id text NOT NULL,
      request_id text,
      entity_type text,
      entity_id text,
      summary text NOT NULL,
      metadata text NOT NULL,
      prev_hash text NOT NULL,
      hash text NOT NULL
    )`).execute(db)
    await sql.raw(`CREATE INDEX control_audit_entity ON control_audit (entity_type, entity_id)`).execute(db)
    await sql.raw(`CREATE TABLE control_audit_head (id integer PRIMARY KEY, seq ${big} NOT NULL, hash text NOT NULL)`).execute(db)
    await sql.raw(`INSERT INTO control_audit_head (id, seq, hash) VALUES (1, 0, '${AUDIT_GENESIS_HASH}')`).execute(db)
  },
}
