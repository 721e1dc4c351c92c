// The oidc-provider adapter: every model the library persists (authorization codes, access
// and refresh tokens, grants, sessions, interactions, registered clients) is one row of
// `oauth_models`, in the Gatehouse database, so every serving process answers for the
// authorization server and a restart loses nothing. Rows are keyed by the SHA-256 digest of
// the model's id and the id is left out of the stored payload: for codes and tokens the id is
// the secret itself, so nothing stored can be presented as a token. The library looks models
// up by id, which it always has in hand, so the digest is all a lookup needs.
import { createHash } from 'node:crypto'
import type { Database } from '../store/database.js'

type Payload = Record<string, unknown>

/** The adapter interface oidc-provider calls (its `adapter` option takes a class of this shape). */
export interface ModelAdapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>
  find(id: string): Promise<Payload | undefined>
  findByUid(uid: string): Promise<Payload | undefined>
  findByUserCode(userCode: string): Promise<Payload | undefined>
  consume(id: string): Promise<void>
  destroy(id: string): Promise<void>
  revokeByGrantId(grantId: string): Promise<void>
}

const digest = (id: string) => createHash('sha256').update(id).digest('hex')
/** Expired rows are swept now and then while writing, not on a timer of their own. */
const SWEEP_EVERY = 200

/**
 * How long a client that registered itself (RFC 7591) is kept before an operator consents to
 * it. Registration is open to anyone (rate-limited per address), so one that never reaches a
 * grant must not stay for ever; a consent keeps it (keepRegisteredClient). A host whose
 * registration ran out is answered `invalid_client` and registers again.
 */
export const UNUSED_CLIENT_TTL_MS = 24 * 3_600_000

type AdapterClass = new (model: string) => ModelAdapter

/**
 * A class oidc-provider instantiates once per model name, writing to `database`. What the
 * database throws goes through `failure` first (the authorization server turns an outage into
 * an error the library answers 503 `temporarily_unavailable`, not 500 `server_error`).
 */
export function modelAdapterClass(database: Database, failure?: (err: unknown) => unknown): AdapterClass {
  const Sql = sqlAdapterClass(database)
  if (!failure) return Sql
  const fail = (err: unknown): never => { throw failure(err) }
  return class TranslatingModelAdapter implements ModelAdapter {
    private readonly inner: ModelAdapter
    constructor(model: string) { this.inner = new Sql(model) }
    upsert(id: string, payload: Payload, expiresIn?: number) { return this.inner.upsert(id, payload, expiresIn).catch(fail) }
    find(id: string) { return this.inner.find(id).catch(fail) }
    findByUid(uid: string) { return this.inner.findByUid(uid).catch(fail) }
    findByUserCode(userCode: string) { return this.inner.findByUserCode(userCode).catch(fail) }
    consume(id: string) { return this.inner.consume(id).catch(fail) }
    destroy(id: string) { return this.inner.destroy(id).catch(fail) }
    revokeByGrantId(grantId: string) { return this.inner.revokeByGrantId(grantId).catch(fail) }
  }
}

function sqlAdapterClass(database: Database): AdapterClass {
  let writes = 0
  const db = database.db
  return class SqlModelAdapter implements ModelAdapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const now = Date.now()
      const { jti: _secret, ...rest } = payload
      // A grant's own rows and every token issued under it share grant_id, so revoking the
      // grant (revokeByGrantId) removes them all at once.
      const grantId = typeof payload.grantId === 'string' ? payload.grantId : this.model === 'Grant' ? id : null
      const client = this.model === 'Client'
      const row = {
        payload: JSON.stringify(rest),
        grant_id: grantId,
        uid: typeof payload.uid === 'string' ? payload.uid : null,
        expires_at: expiresIn ? now + expiresIn * 1000 : client ? now + UNUSED_CLIENT_TTL_MS : null,
      }
      // A client's row keeps its expiry when its metadata is written again: a consent cleared it.
      const { expires_at: _expiry, ...kept } = row
      await db.insertInto('oauth_models').values({ model: this.model, id_digest: digest(id), consumed_at: null, ...row })
        .onConflict((oc) => oc.columns(['model', 'id_digest']).doUpdateSet(client ? kept : row)).execute()
      if (++writes % SWEEP_EVERY === 0) await db.deleteFrom('oauth_models').where('expires_at', '<', now).execute()
    }

    async find(id: string): Promise<Payload | undefined> {
      const row = await db.selectFrom('oauth_models').select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', this.model).where('id_digest', '=', digest(id)).executeTakeFirst()
      return row ? this.payloadOf(row, id) : undefined
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      // Only sessions are looked up by uid; their id is not needed back (the library reads it from the cookie).
      const row = await db.selectFrom('oauth_models').select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', this.model).where('uid', '=', uid).executeTakeFirst()
      return row ? this.payloadOf(row, undefined) : undefined
    }

    async findByUserCode(): Promise<Payload | undefined> {
      // The device flow is not enabled: there are no user codes.
      return undefined
    }

    async consume(id: string): Promise<void> {
      await db.updateTable('oauth_models').set({ consumed_at: Date.now() })
        .where('model', '=', this.model).where('id_digest', '=', digest(id)).execute()
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oauth_models').where('model', '=', this.model).where('id_digest', '=', digest(id)).execute()
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.deleteFrom('oauth_models').where('model', '=', this.model).where('grant_id', '=', grantId).execute()
    }

    private payloadOf(row: Record<string, unknown>, id: string | undefined): Payload | undefined {
      if (row.expires_at !== null && Number(row.expires_at) <= Date.now()) return undefined
      const payload = JSON.parse(row.payload as string) as Payload
      if (id !== undefined && this.model !== 'Client') payload.jti = id
      if (row.consumed_at !== null) payload.consumed = Math.floor(Number(row.consumed_at) / 1000)
      return payload
    }
  }
}

/** What a grant issues: revoking the grant removes these and the grant (interactions and sessions stay). */
const ISSUED_UNDER_GRANT = ['Grant', 'AuthorizationCode', 'AccessToken', 'RefreshToken', 'ClientCredentials', 'DeviceCode', 'BackchannelAuthenticationRequest']

/** Removes every code and token of these grants, and the grants: the next use of any of them fails. */
export async function revokeGrants(db: Database['db'], grantIds: readonly string[]): Promise<void> {
  if (grantIds.length === 0) return
  await db.deleteFrom('oauth_models').where('grant_id', 'in', grantIds).where('model', 'in', ISSUED_UNDER_GRANT).execute()
}

/**
 * An operator consents to this client: a registration it made is kept from now on (see
 * UNUSED_CLIENT_TTL_MS). False when there is none (a metadata document's client, or a
 * registration that ran out meanwhile).
 */
export async function keepRegisteredClient(db: Database['db'], clientId: string): Promise<boolean> {
  const now = Date.now()
  const { numUpdatedRows } = await db.updateTable('oauth_models').set({ expires_at: null })
    .where('model', '=', 'Client').where('id_digest', '=', digest(clientId))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])).executeTakeFirst()
  return numUpdatedRows > 0n
}
