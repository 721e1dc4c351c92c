// Admin API tokens managed like machine credentials: minted with `gatehouse admin token
// create` (and once by the first `gatehouse start`), shown once, stored only as SHA-256
// digests, looked up by digest, listed by a non-secret hint, revoked for good. The
// PLUGIN_GATEHOUSE_ADMIN_TOKEN setting stays as the way in for automation.
import { randomBytes } from 'node:crypto'
import type { Database, Db } from '../store/database.js'
import { ApiError, invalid, notFound } from '../kernel/errors.js'
import { digestToken, generateId, tokenHint } from './tokens.js'
import type { CredentialChangeActor } from './credentials.js'

/** Admin tokens look unlike machine tokens (`gth_`), so neither is mistaken for the other. */
export const ADMIN_TOKEN_PREFIX = 'gta_'

export interface AdminTokenRecord {
  readonly id: string
  readonly label: string
  readonly status: 'active' | 'revoked'
  /** `gta_…a1b2`: enough to recognise a token, never to use it. */
  readonly tokenHint: string
  /** Who minted it (`cli:ops`, `start`). */
  readonly createdBy: string
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
}

export interface AdminTokenChange {
  readonly action: 'create' | 'revoke'
  readonly token: AdminTokenRecord
  readonly by: CredentialChangeActor
}

/** Runs inside the change's transaction (the audit log is written through it). */
export type AdminTokenChangeHook = (tx: Db, change: AdminTokenChange) => Promise<void>

/** Last use is written at most this often per token: it is a hint for pruning, not a log. */
const LAST_USED_RESOLUTION_MS = 60_000

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(Number(v)).toISOString())

function fromRow(row: Record<string, unknown>): AdminTokenRecord {
  return {
    id: row.id as string,
    label: row.label as string,
    status: row.revoked_at === null || row.revoked_at === undefined ? 'active' : 'revoked',
    tokenHint: row.token_hint as string,
    createdBy: row.created_by as string,
    createdAt: iso(row.created_at) as string,
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
  }
}

export class AdminTokenService {
  private readonly lastUseWritten = new Map<string, number>()

  constructor(private readonly database: Database, private readonly onChange?: AdminTokenChangeHook) {}

  /** Mints a token; the only time its value exists outside the caller's hands. */
  async create(label: string, by: CredentialChangeActor): Promise<{ adminToken: AdminTokenRecord; token: string }> {
    if (typeof label !== 'string' || label.trim() === '' || label.length > 200) {
      throw invalid('label', 'a non-empty string of at most 200 characters is required')
    }
    const token = ADMIN_TOKEN_PREFIX + randomBytes(32).toString('base64url')
    const id = generateId('adm')
    await this.changing(id, 'create', by, (tx) => tx.insertInto('admin_tokens').values({
      id, label: label.trim(), token_digest: digestToken(token), token_hint: tokenHint(token),
      created_by: `${by.type}:${by.id}`, created_at: Date.now(),
    }).execute())
    return { adminToken: await this.get(id), token }
  }

  async list(): Promise<AdminTokenRecord[]> {
    const rows = await this.database.db.selectFrom('admin_tokens').selectAll().orderBy('created_at').orderBy('id').execute()
    return rows.map(fromRow)
  }

  async get(id: string): Promise<AdminTokenRecord> {
    const row = await this.database.db.selectFrom('admin_tokens').selectAll().where('id', '=', id).executeTakeFirst()
    if (!row) throw notFound(`No admin token with id ${id}`)
    return fromRow(row)
  }

  /** Revokes for good; the token stops opening the admin API at once, in every process. */
  async revoke(id: string, by: CredentialChangeActor): Promise<AdminTokenRecord> {
    const current = await this.get(id)
    if (current.status === 'revoked') throw new ApiError('CONFLICT', `Admin token ${id} is already revoked`)
    await this.changing(id, 'revoke', by, (tx) => tx.updateTable('admin_tokens').set({ revoked_at: Date.now() }).where('id', '=', id).execute())
    return this.get(id)
  }

  /** The active token with this value, or undefined. Looked up by digest, so no cache can outlive a revoke. */
  async authenticate(token: string): Promise<AdminTokenRecord | undefined> {
    if (!token.startsWith(ADMIN_TOKEN_PREFIX)) return undefined
    const row = await this.database.db.selectFrom('admin_tokens').selectAll()
      .where('token_digest', '=', digestToken(token)).where('revoked_at', 'is', null).executeTakeFirst()
    if (!row) return undefined
    const now = Date.now()
    const id = row.id as string
    if (now - (this.lastUseWritten.get(id) ?? Number(row.last_used_at ?? 0)) >= LAST_USED_RESOLUTION_MS) {
      this.lastUseWritten.set(id, now)
      await this.database.db.updateTable('admin_tokens').set({ last_used_at: now }).where('id', '=', id).execute()
    }
    return fromRow(row)
  }

  private async changing(id: string, action: AdminTokenChange['action'], by: CredentialChangeActor, write: (tx: Db) => Promise<unknown>): Promise<void> {
    await this.database.db.transaction().execute(async (tx) => {
      await write(tx)
      if (!this.onChange) return
      const row = await tx.selectFrom('admin_tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
      await this.onChange(tx, { action, token: fromRow(row), by })
    })
  }
}
