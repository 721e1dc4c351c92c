// Approvals of actions that apply stored content (entry.publishDraft applies a draft) are
// bound to that content as well as to their payload: the content and its digest at request
// time, so an execution can refuse content changed after the approval was asked for.
import { sql } from 'kysely'
import type { Migration } from './migration.js'

export const approvalReviewedState: Migration = {
  name: '010-approval-reviewed-state',
  async up(db) {
    await sql.raw(`ALTER TABLE control_approvals ADD COLUMN reviewed_state text`).execute(db)
  },
}
