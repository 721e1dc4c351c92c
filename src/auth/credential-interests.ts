// The webhook interests credentials hold, read from the credentials table auth owns: webhook
// targeting asks here instead of reading another part's table.
import type { Db } from '../store/database.js'
import type { WebhookInterest } from './credentials.js'

export interface InterestHolder {
  readonly credentialId: string
  readonly interests: readonly WebhookInterest[]
}

/** Active, unexpired managed credentials with at least one interest. */
export async function loadInterestHolders(db: Db, now = Date.now()): Promise<InterestHolder[]> {
  const rows = await db.selectFrom('credentials').select(['id', 'webhook_interests', 'expires_at'])
    .where('status', '=', 'active').orderBy('id').execute()
  const out: InterestHolder[] = []
  for (const row of rows) {
    if (row.expires_at !== null && row.expires_at !== undefined && Number(row.expires_at) <= now) continue
    const raw = row.webhook_interests
    const interests = (raw === null || raw === undefined ? [] : typeof raw === 'string' ? JSON.parse(raw) : raw) as WebhookInterest[]
    if (Array.isArray(interests) && interests.length > 0) out.push({ credentialId: row.id as string, interests })
  }
  return out
}

/** The labels of the given credentials (ids not found are left out). */
export async function credentialLabels(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('credentials').select(['id', 'label']).where('id', 'in', ids).execute()
  return new Map(rows.map((r) => [r.id as string, r.label as string]))
}
