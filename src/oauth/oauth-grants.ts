// Which managed credential an operator's consent created for a grant (`oauth_grants`). An
// OAuth access token names its grant; the grant names the credential whose status, scopes,
// boundaries, allowlist and expiry decide what the token's bearer may do right now.
import type { Db } from '../store/database.js'
import { revokeGrants } from './model-store.js'

export interface GrantLink {
  readonly grantId: string
  readonly credentialId: string
  readonly clientId: string
  /** The panel admin who consented. */
  readonly grantedBy: string
  readonly createdAt: string
  readonly updatedAt: string
}

const fromRow = (r: Record<string, unknown>): GrantLink => ({
  grantId: r.grant_id as string,
  credentialId: r.credential_id as string,
  clientId: r.client_id as string,
  grantedBy: r.granted_by as string,
  createdAt: new Date(Number(r.created_at)).toISOString(),
  updatedAt: new Date(Number(r.updated_at)).toISOString(),
})

export async function linkGrant(db: Db, link: { grantId: string; credentialId: string; clientId: string; grantedBy: string }): Promise<void> {
  const now = Date.now()
  await db.insertInto('oauth_grants').values({ grant_id: link.grantId, credential_id: link.credentialId, client_id: link.clientId, granted_by: link.grantedBy, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('grant_id').doUpdateSet({ credential_id: link.credentialId, granted_by: link.grantedBy, updated_at: now })).execute()
}

export async function grantLink(db: Db, grantId: string): Promise<GrantLink | undefined> {
  const row = await db.selectFrom('oauth_grants').selectAll().where('grant_id', '=', grantId).executeTakeFirst()
  return row ? fromRow(row) : undefined
}

/** Every grant, newest first (the admin API's and panel's list of OAuth-granted credentials). */
export async function listGrantLinks(db: Db): Promise<GrantLink[]> {
  return (await db.selectFrom('oauth_grants').selectAll().orderBy('created_at', 'desc').execute()).map(fromRow)
}

export async function grantLinksOfCredential(db: Db, credentialId: string): Promise<GrantLink[]> {
  return (await db.selectFrom('oauth_grants').selectAll().where('credential_id', '=', credentialId).execute()).map(fromRow)
}

/**
 * Revoking (or deleting) a credential ends its OAuth grants: every code, access and refresh
 * token under them is deleted in the credential change's own transaction, so no process can
 * accept one afterwards. The links stay, so the audit trail can still name the client.
 */
export async function revokeCredentialGrants(db: Db, credentialId: string): Promise<string[]> {
  const grants = (await grantLinksOfCredential(db, credentialId)).map((g) => g.grantId)
  await revokeGrants(db, grants)
  return grants
}
