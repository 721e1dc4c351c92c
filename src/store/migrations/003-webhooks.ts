// Webhooks: the delivery queue (the outbox rows written in the content write's own
// transaction), the probe ledger and its cross-process cooldown, the dev test sink's
// captures, and worker heartbeats. The signing secret is never stored here.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const webhooks: Migration = {
  name: '003-webhooks',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE webhook_deliveries (
      id ${adapter.idColumnType},
      delivery_id text NOT NULL,
      event_id text NOT NULL,
      kind text NOT NULL,
      resource_type text,
      resource_id ${big},
      action text,
      change_seq ${big},
      body text NOT NULL,
      routing_mode text NOT NULL,
      matched_credentials text NOT NULL,
      status text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at ${big} NOT NULL,
      lease_owner text,
      lease_token text,
      lease_until ${big},
      last_attempt_at ${big},
      last_status_code integer,
      last_error text,
      created_at ${big} NOT NULL,
      delivered_at ${big},
      dead_lettered_at ${big},
      replay_count integer NOT NULL DEFAULT 0,
      replayed_at ${big}
    )`).execute(db)
    await sql.raw(`CREATE UNIQUE INDEX webhook_deliveries_delivery_id ON webhook_deliveries (delivery_id)`).execute(db)
    // Claims scan only due, queued rows; partial indexes keep delivered history out of the way.
    await sql.raw(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'queued'`).execute(db)
    await sql.raw(`CREATE INDEX webhook_deliveries_dlq ON webhook_deliveries (status, id) WHERE dead_lettered_at IS NOT NULL`).execute(db)
    await sql.raw(`CREATE INDEX webhook_deliveries_delivered ON webhook_deliveries (delivered_at) WHERE status = 'delivered'`).execute(db)

    await sql.raw(`CREATE TABLE webhook_probes (
      id ${adapter.idColumnType},
      probe_id text NOT NULL,
      triggered_at ${big} NOT NULL,
      triggered_by text NOT NULL,
      status text NOT NULL,
      status_code integer,
      error text,
      duration_ms integer NOT NULL,
      target_host text NOT NULL,
      payload text NOT NULL
    )`).execute(db)
    // One row; a conditional UPDATE on it is the cooldown, atomic across processes.
    await sql.raw(`CREATE TABLE webhook_probe_cooldown (id integer PRIMARY KEY, last_probe_at ${big} NOT NULL)`).execute(db)
    await sql.raw(`INSERT INTO webhook_probe_cooldown (id, last_probe_at) VALUES (1, 0)`).execute(db)

    await sql.raw(`CREATE TABLE webhook_sink_captures (
      id ${adapter.idColumnType},
      received_at ${big} NOT NULL,
      delivery_id text,
      event_id text,
      kind text,
      signature_valid ${adapter.booleanType} NOT NULL,
      standard_signature_valid ${adapter.booleanType} NOT NULL,
      problem text,
      routing_mode text,
      matched_credentials text,
      headers text NOT NULL,
      body_preview text NOT NULL,
      body_bytes integer NOT NULL
    )`).execute(db)
    await sql.raw(`CREATE TABLE webhook_sink_stats (
      id integer PRIMARY KEY,
      captured ${big} NOT NULL,
      valid ${big} NOT NULL,
      last_captured_at ${big}
    )`).execute(db)
    await sql.raw(`INSERT INTO webhook_sink_stats (id, captured, valid, last_captured_at) VALUES (1, 0, 0, NULL)`).execute(db)

    await sql.raw(`CREATE TABLE webhook_workers (
      worker_id text PRIMARY KEY,
      pid integer NOT NULL,
      hostname text NOT NULL,
      started_at ${big} NOT NULL,
      heartbeat_at ${big} NOT NULL,
      delivered ${big} NOT NULL,
      failed ${big} NOT NULL
    )`).execute(db)
  },
}
