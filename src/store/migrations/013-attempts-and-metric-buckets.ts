// Two tables for the operator console. `webhook_attempts` (webhooks part): every delivery
// attempt with its status code, latency, the headers sent and a size-capped excerpt of the
// answer, written in batches by the delivery worker; never the signing secret.
// `ops_metric_buckets` (ops part): request, error, latency and delivery-outcome counters per
// time bucket and credential, added to by every process, so charts show the whole site.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const attemptsAndMetricBuckets: Migration = {
  name: '013-attempts-and-metric-buckets',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE webhook_attempts (
      id ${adapter.idColumnType},
      delivery_row_id ${big} NOT NULL,
      attempt integer NOT NULL,
      attempted_at ${big} NOT NULL,
      duration_ms integer NOT NULL,
      status_code integer,
      outcome text NOT NULL,
      error text,
      request_headers text NOT NULL,
      response_excerpt text,
      response_bytes integer,
      worker_id text NOT NULL
    )`).execute(db)
    await sql.raw(`CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_row_id, id)`).execute(db)
    await sql.raw(`CREATE INDEX webhook_attempts_at ON webhook_attempts (attempted_at)`).execute(db)

    // One row per (bucket width, bucket start, credential); '' is traffic without a
    // credential and the site's deliveries. lat_0..lat_11 count requests by latency:
    // <= 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000 ms, and slower.
    const counters = ['requests', 'client_errors', 'server_errors', 'auth_failures', 'scope_denials', 'rate_limited',
      ...Array.from({ length: 12 }, (_, i) => `lat_${i}`), 'delivered', 'failed_attempts', 'dead_lettered']
    await sql.raw(`CREATE TABLE ops_metric_buckets (
      resolution_ms integer NOT NULL,
      bucket_start ${big} NOT NULL,
      subject text NOT NULL,
      ${counters.map((c) => `${c} ${big} NOT NULL DEFAULT 0`).join(',\n      ')},
      latency_ms_sum double precision NOT NULL DEFAULT 0,
      PRIMARY KEY (resolution_ms, bucket_start, subject)
    )`).execute(db)
  },
}
