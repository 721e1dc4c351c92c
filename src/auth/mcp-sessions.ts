// MCP sessions, kept in the database (migration 015) so that every serving process can
// continue a session any other one started: the transport itself is stateless, and each
// request finds its session here. A session is bound to the credential that opened it (a
// request with another token is answered as if the session did not exist) and carries the
// client's name and version from `initialize`, which become the provenance of the approvals
// it requests. The id goes only to the client; the table keeps its SHA-256 digest.
import { createHash, randomBytes } from 'node:crypto'
import type { Database } from '../store/database.js'

/**
 * `perCredential`: sessions a credential keeps; opening one more ends its least recently used
 * (a client that initializes in a loop cannot fill the table).
 */
export const MCP_SESSION_LIMITS = Object.freeze({ idleHours: 24, touchSeconds: 60, perCredential: 100 })

export interface McpSession {
  readonly id: string
  readonly credentialId: string
  readonly clientName: string
  readonly clientVersion: string
  readonly createdAt: number
  readonly lastSeenAt: number
}

export interface ClientInfo {
  readonly name: string
  readonly version: string
}

/** Session ids the SDK client echoes in `Mcp-Session-Id`: 43 characters of base64url. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/
const digest = (id: string) => createHash('sha256').update(id).digest('hex')
const idleMs = MCP_SESSION_LIMITS.idleHours * 3_600_000

export class McpSessions {
  constructor(private readonly database: Database) {}

  /** Opens a session for a credential; sessions idle past the limit are swept here. */
  async create(credentialId: string, client: ClientInfo, now = Date.now()): Promise<McpSession> {
    const id = randomBytes(32).toString('base64url')
    const { db } = this.database
    await db.deleteFrom('mcp_sessions').where('last_seen_at', '<=', now - idleMs).execute()
    const session = { id, credentialId, clientName: client.name, clientVersion: client.version, createdAt: now, lastSeenAt: now }
    await db.insertInto('mcp_sessions').values({
      id_digest: digest(id), credential_id: credentialId, client_name: client.name, client_version: client.version, created_at: now, last_seen_at: now,
    }).execute()
    const kept = await db.selectFrom('mcp_sessions').select('id_digest').where('credential_id', '=', credentialId)
      .orderBy('last_seen_at', 'desc').orderBy('created_at', 'desc').orderBy('id_digest').limit(MCP_SESSION_LIMITS.perCredential).execute()
    if (kept.length === MCP_SESSION_LIMITS.perCredential) {
      await db.deleteFrom('mcp_sessions').where('credential_id', '=', credentialId).where('id_digest', 'not in', kept.map((r) => r.id_digest as string)).execute()
    }
    return session
  }

  /**
   * The live session with this id opened by this credential, or undefined (unknown, idle too
   * long, or another credential's). Marks it seen at most once a minute.
   */
  async resolve(id: string, credentialId: string, now = Date.now()): Promise<McpSession | undefined> {
    if (!SESSION_ID.test(id)) return undefined
    const key = digest(id)
    const row = await this.database.db.selectFrom('mcp_sessions').selectAll().where('id_digest', '=', key).executeTakeFirst()
    if (!row || row.credential_id !== credentialId) return undefined
    const lastSeenAt = Number(row.last_seen_at)
    if (lastSeenAt <= now - idleMs) return undefined
    if (now - lastSeenAt >= MCP_SESSION_LIMITS.touchSeconds * 1000) {
      await this.database.db.updateTable('mcp_sessions').set({ last_seen_at: now }).where('id_digest', '=', key).execute()
    }
    return {
      id, credentialId, clientName: row.client_name as string, clientVersion: row.client_version as string,
      createdAt: Number(row.created_at), lastSeenAt: now,
    }
  }

  /** Ends a session (HTTP DELETE); false when it was not this credential's live session. */
  async end(id: string, credentialId: string): Promise<boolean> {
    if (!SESSION_ID.test(id)) return false
    const result = await this.database.db.deleteFrom('mcp_sessions')
      .where('id_digest', '=', digest(id)).where('credential_id', '=', credentialId).executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }
}
