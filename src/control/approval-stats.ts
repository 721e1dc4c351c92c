// What the operations surfaces need from the control plane's approvals table (migration
// 008, owned here): how many approvals wait for a decision. Zero while the control plane is off (its
// table may hold old rows, but nobody can decide them), and zero, not a failure, on a store
// without the table (an older schema), as readWebhookState reads the webhook tables.
import type { Database } from '../store/database.js'

export async function readApprovalsPending(database: Database, controlPlaneOn: boolean): Promise<number> {
  if (!controlPlaneOn) return 0
  try {
    const row = await database.db.selectFrom('control_approvals').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'pending').executeTakeFirst()
    return Number(row?.n ?? 0)
  } catch (err) {
    if (database.adapter.isMissingTable(err)) return 0
    throw err
  }
}
