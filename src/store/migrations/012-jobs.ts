// The job runtime (DESIGN §9): workflow definitions and their runs. A workflow keeps the
// first scheduled occurrence still waiting to be claimed (`due_at`); a run holds one
// occurrence under a lease. Two partial unique indexes make the claim safe across
// processes: one live (not abandoned) run per (workflow, occurrence), and one open run per
// workflow. An abandoned run keeps its row for the history and frees its occurrence.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const jobs: Migration = {
  name: '012-jobs',
  async up(db, adapter) {
    const big = adapter.bigintType
    await sql.raw(`CREATE TABLE workflows (
      id text PRIMARY KEY,
      name text NOT NULL,
      template_key text NOT NULL,
      credential_id text NOT NULL,
      cron text NOT NULL,
      timezone text NOT NULL,
      boundary text,
      config text NOT NULL,
      status text NOT NULL,
      anchor_at ${big} NOT NULL,
      due_at ${big},
      created_at ${big} NOT NULL,
      updated_at ${big} NOT NULL
    )`).execute(db)
    await sql.raw(`CREATE INDEX workflows_credential ON workflows (credential_id, created_at, id)`).execute(db)
    await sql.raw(`CREATE INDEX workflows_created ON workflows (created_at, id)`).execute(db)
    await sql.raw(`CREATE INDEX workflows_due ON workflows (due_at) WHERE status = 'active'`).execute(db)

    await sql.raw(`CREATE TABLE workflow_runs (
      id text PRIMARY KEY,
      workflow_id text NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
      occurrence ${big} NOT NULL,
      status text NOT NULL,
      worker_id text,
      summary text,
      approval_ids text NOT NULL,
      outcome_refs text NOT NULL,
      metadata text NOT NULL,
      started_at ${big} NOT NULL,
      updated_at ${big} NOT NULL,
      finished_at ${big},
      lease_expires_at ${big}
    )`).execute(db)
    await sql.raw(`CREATE UNIQUE INDEX workflow_runs_occurrence ON workflow_runs (workflow_id, occurrence) WHERE status <> 'abandoned'`).execute(db)
    await sql.raw(`CREATE UNIQUE INDEX workflow_runs_open ON workflow_runs (workflow_id) WHERE status IN ('started', 'approval_requested')`).execute(db)
    await sql.raw(`CREATE INDEX workflow_runs_history ON workflow_runs (workflow_id, started_at, id)`).execute(db)
    // The lease timer scans only open runs.
    await sql.raw(`CREATE INDEX workflow_runs_lease ON workflow_runs (lease_expires_at) WHERE status IN ('started', 'approval_requested')`).execute(db)
  },
}
