// The clients the consent page describes (`oauth_clients`): each client id seen at the
// authorization endpoint, how it identified itself (a Client ID Metadata Document URL or
// dynamic registration), its name and when it was first seen. The library keeps what it
// needs to run the flow itself (model-store.ts); this is what an operator is shown.
import type { Db } from '../store/database.js'

export type ClientKind = 'metadata_document' | 'registered'

export interface SeenClient {
  readonly clientId: string
  readonly kind: ClientKind
  readonly clientName: string | null
  /** The client's metadata as the library resolved it (redirect URIs, logo, …). */
  readonly metadata: Readonly<Record<string, unknown>>
  readonly firstSeenAt: string
}

/** Records a client when first seen (and its latest metadata afterwards); answers it. */
export async function recordClient(db: Db, clientId: string, kind: ClientKind, metadata: Record<string, unknown>): Promise<SeenClient> {
  const now = Date.now()
  const name = typeof metadata.client_name === 'string' ? metadata.client_name.slice(0, 200) : null
  const text = JSON.stringify(metadata)
  await db.insertInto('oauth_clients').values({ client_id: clientId, kind, client_name: name, metadata: text, fetched_at: now, first_seen_at: now })
    .onConflict((oc) => oc.column('client_id').doUpdateSet({ kind, client_name: name, metadata: text, fetched_at: now })).execute()
  return (await seenClient(db, clientId)) as SeenClient
}

export async function seenClient(db: Db, clientId: string): Promise<SeenClient | undefined> {
  const r = await db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst()
  if (!r) return undefined
  return {
    clientId: r.client_id as string,
    kind: r.kind as ClientKind,
    clientName: (r.client_name as string | null) ?? null,
    metadata: JSON.parse(r.metadata as string) as Record<string, unknown>,
    firstSeenAt: new Date(Number(r.first_seen_at)).toISOString(),
  }
}
