// Operations state shared by every process of a site: reliability signal counts in small
// time buckets (so sliding windows agree across API processes) and the incidents derived
// from them, with the times they opened and resolved.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const opsIncidents: Migration = {
  name: '007-ops-incidents',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE ops_signal_buckets (
      signal text NOT NULL,
      bucket_start ${big} NOT NULL,
      count ${big} NOT NULL,
      PRIMARY KEY (signal, bucket_start)
    )`).execute(db)
    await sql.raw(`CREATE TABLE ops_incidents (
      id text PRIMARY KEY,
      category text NOT NULL,
      signal text NOT NULL,
      severity text NOT NULL,
      peak_severity text NOT NULL,
      opened_at ${big} NOT NULL,
      resolved_at ${big},
      updated_at ${big} NOT NULL,
      value double precision NOT NULL,
      peak_value double precision NOT NULL,
      thresholds ${adapter.jsonType} NOT NULL,
      window_seconds integer NOT NULL
    )`).execute(db)
    // At most one open incident per category, also with several processes evaluating.
    await sql.raw(`CREATE UNIQUE INDEX ops_incidents_open ON ops_incidents (category) WHERE resolved_at IS NULL`).execute(db)
    await sql.raw(`CREATE INDEX ops_incidents_opened ON ops_incidents (opened_at)`).execute(db)
  },
}
