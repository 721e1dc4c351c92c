// Credentials: managed ones in the database, configured ones from
// PLUGIN_GATEHOUSE_API_CREDENTIALS, and the legacy default token. One service resolves a
// bearer token to a caller and manages the lifecycle (create, rotate, pause, resume,
// revoke, delete). Expiry, status and IP allowlists are enforced on every request.
import type { Database, Db } from '../store/database.js'
import { SettingsError, type Settings } from '../kernel/settings.js'
import { ApiError, invalid, invalidEach, notFound, type ErrorDetail } from '../kernel/errors.js'
import { TOKEN_PREFIX, digestToken, generateId, generateToken, tokenHint } from './tokens.js'
import { IpAllowlist, parseCidr } from './ip-allowlist.js'
import { isDateTime } from '../resources/formats.js'
import { effectiveScopes, type ScopeCatalog } from './scopes.js'
import type { Boundaries, Caller, CredentialSource } from '../kernel/caller.js'

export type CredentialStatus = 'active' | 'paused' | 'revoked'

export interface WebhookInterest {
  /** A webhook event type (`entry`, `product`, `order`: families that declare one). */
  readonly resourceType: string
  readonly actions: readonly ('created' | 'updated' | 'deleted')[]
}

export interface CredentialRecord {
  readonly id: string
  readonly label: string
  readonly source: CredentialSource
  readonly tokenHint: string
  readonly scopes: readonly string[]
  readonly ipAllowlist: readonly string[]
  readonly webhookInterests: readonly WebhookInterest[]
  readonly boundaries: Boundaries | null
  readonly status: CredentialStatus
  readonly expiresAt: string | null
  readonly createdAt: string | null
  readonly rotatedAt: string | null
  readonly lastUsedAt: string | null
  readonly firstUsedAt: string | null
}

export interface CreateCredentialInput {
  readonly label: string
  readonly scopes: readonly string[]
  readonly expiresAt?: string | null
  readonly ipAllowlist?: readonly string[]
  readonly webhookInterests?: readonly WebhookInterest[]
  readonly boundaries?: Boundaries | null
}

/**
 * The caller the CLI's read commands act as: the operator at the server's console, who can
 * read everything the database holds anyway; every scope of the catalogue, no boundaries.
 */
export function operatorCaller(scopes: ScopeCatalog): Caller {
  const all = scopes.entries.map((s) => s.scope)
  return { credentialId: 'operator', label: 'Operator (CLI)', source: 'operator', grantedScopes: all, scopes: effectiveScopes(all), boundaries: null }
}

/** Who changed a credential: the admin API and panel pass the admin, the CLI the operator. */
export interface CredentialChangeActor {
  readonly type: 'admin' | 'cli' | 'system'
  readonly id: string
  /** The HTTP request that asked for the change, when one did (its audit record names it). */
  readonly requestId?: string
}

export interface CredentialChange {
  readonly action: 'create' | 'update' | 'rotate' | 'pause' | 'resume' | 'revoke' | 'delete'
  readonly credential: CredentialRecord
  /** Properties an update changed. */
  readonly changed?: readonly string[]
  readonly by?: CredentialChangeActor
}

/**
 * Runs inside the transaction of each lifecycle change (the control plane's audit log is
 * written through it), so a change and its record commit together. A callback, so this
 * module does not depend on the control plane.
 */
export type CredentialChangeHook = (tx: Db, change: CredentialChange) => Promise<void>

export interface CredentialServiceOptions {
  /** The app's scope catalogue: scopes a credential may be granted. */
  readonly scopes: ScopeCatalog
  /** Webhook event types interests may name. */
  readonly eventTypes: readonly string[]
  readonly onChange?: CredentialChangeHook
}

interface Resolved {
  readonly record: CredentialRecord
  readonly allowlist: IpAllowlist | null
  readonly expiresAtMs: number | null
  readonly scopes: ReadonlySet<string>
}

const CACHE_MS = 2000
const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString())

/** A use noted by noteUse, which the call may take back (takeBackUse). */
export interface UseMark {
  readonly id: string
}

export class CredentialService {
  private readonly configured = new Map<string, Resolved>()
  private readonly cache = new Map<string, { at: number; resolved: Resolved | null }>()
  private readonly pendingUse = new Map<string, number>()
  private flushTimer: NodeJS.Timeout | undefined
  /** Audits lifecycle changes (the control plane's audit log). */
  private readonly onChange: CredentialChangeHook | undefined
  private readonly scopes: ScopeCatalog
  private readonly eventTypes: readonly string[]

  constructor(private readonly database: Database, private readonly settings: Settings, opts: CredentialServiceOptions) {
    this.scopes = opts.scopes
    this.eventTypes = opts.eventTypes
    this.onChange = opts.onChange
    const readScopes = opts.scopes.readScopes
    for (const [i, c] of settings.apiCredentials.entries()) {
      this.configured.set(digestToken(c.token), resolve({
        id: c.id, label: c.label, source: 'configured', tokenHint: tokenHint(c.token), scopes: knownScopes('PLUGIN_GATEHOUSE_API_CREDENTIALS', `entry ${i}: `, c.scopes, opts.scopes),
        ipAllowlist: c.ipAllowlist ?? [], webhookInterests: [], boundaries: null, status: 'active',
        expiresAt: c.expiresAt ? new Date(c.expiresAt).toISOString() : null, createdAt: null, rotatedAt: null,
        lastUsedAt: null, firstUsedAt: null,
      }))
    }
    // Checked with or without the token: a typo must not wait to surface until one is set.
    const tokenScopes = settings.tokenScopes ? knownScopes('PLUGIN_GATEHOUSE_TOKEN_SCOPES', '', settings.tokenScopes, opts.scopes) : readScopes
    if (settings.apiToken) {
      this.configured.set(digestToken(settings.apiToken), resolve({
        id: 'default', label: 'Legacy default token', source: 'legacy', tokenHint: tokenHint(settings.apiToken),
        scopes: tokenScopes, ipAllowlist: [], webhookInterests: [], boundaries: null,
        status: 'active', expiresAt: null, createdAt: null, rotatedAt: null, lastUsedAt: null, firstUsedAt: null,
      }))
    }
  }

  /**
   * Resolves a bearer token for a request from `ip`; throws 401 or 403. `other` is asked for a
   * token that is neither configured nor a credential's (no prefix) before the database: an
   * OAuth access token. The token is digested once for both questions.
   */
  async authenticate(token: string | undefined, ip: string, other?: (token: string) => Promise<Caller | undefined>, now = Date.now()): Promise<Caller> {
    if (!token) throw unauthorized('Missing bearer token')
    const digest = digestToken(token)
    const configured = this.configured.get(digest)
    if (configured) return this.admit(configured, ip, now)
    if (other && !token.startsWith(TOKEN_PREFIX)) {
      const caller = await other(token)
      if (caller) return caller
    }
    const resolved = await this.lookup(digest, now)
    if (!resolved) throw unauthorized('Unknown token')
    return this.admit(resolved, ip, now)
  }

  /**
   * The caller a token stands for when that is known now, without waiting: a configured token,
   * or a managed one looked up within the last CACHE_MS, that would be admitted from `ip`.
   * Undefined for anything else, refusals included: `authenticate` answers those. (The machine
   * API asks this first, so most requests pass authentication without a promise.)
   */
  knownCaller(token: string | undefined, ip: string, now = Date.now()): Caller | undefined {
    if (!token) return undefined
    const digest = digestToken(token)
    let resolved = this.configured.get(digest)
    if (resolved === undefined) {
      const hit = this.cache.get(digest)
      if (!hit || now - hit.at >= CACHE_MS || hit.resolved === null) return undefined
      resolved = hit.resolved
    }
    try {
      return this.admit(resolved, ip, now)
    } catch {
      return undefined
    }
  }

  /**
   * The caller a managed credential is, read from the database now (no cache): OAuth access
   * tokens name their credential, and its revocation, pause, narrowing or expiry must hold on
   * the very next request in every process. Throws 401 or 403 as authenticate does.
   */
  async authenticateManaged(id: string, ip: string, now = Date.now()): Promise<Caller> {
    const row = await this.database.db.selectFrom('credentials').selectAll().where('id', '=', id).executeTakeFirst()
    if (!row) throw unauthorized('Unknown token')
    return this.admit(resolve(fromRow(row)), ip, now)
  }

  private admit(resolved: Resolved, ip: string, now: number): Caller {
    const r = resolved.record
    if (r.status === 'revoked') throw unauthorized('Credential revoked')
    if (r.status === 'paused') throw unauthorized('Credential paused')
    if (resolved.expiresAtMs !== null && resolved.expiresAtMs <= now) throw unauthorized('Credential expired')
    if (resolved.allowlist && !resolved.allowlist.allows(ip)) {
      // The caller's own address, as this server saw it (behind a proxy, the proxy's unless
      // trusted): what an operator compares with the allowlist.
      throw new ApiError('FORBIDDEN', `Client address ${ip} is not in this credential's IP allowlist`)
    }
    return { credentialId: r.id, label: r.label, source: r.source, grantedScopes: r.scopes, scopes: resolved.scopes, boundaries: r.boundaries }
  }

  private async lookup(digest: string, now: number): Promise<Resolved | null> {
    const hit = this.cache.get(digest)
    if (hit && now - hit.at < CACHE_MS) return hit.resolved
    const row = await this.database.db.selectFrom('credentials').selectAll().where('token_digest', '=', digest).executeTakeFirst()
    const resolved = row ? resolve(fromRow(row)) : null
    if (this.cache.size > 10_000) this.cache.clear()
    this.cache.set(digest, { at: now, resolved })
    return resolved
  }

  /**
   * A call the credential made that passed the surface's checks (authenticated, in scope, valid
   * input): its last use, and its first (DESIGN §10, adoption: "time to first successful
   * call"). Authentication alone is not a use: a call refused for a missing scope is none.
   * Batched: one write per credential every few seconds, not per request.
   */
  noteUse(id: string, now = Date.now()): UseMark {
    const mark: UseMark = { id }
    this.lastNote.set(id, { mark, before: this.pendingUse.get(id) })
    this.pendingUse.set(id, now)
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => { this.flushTimer = undefined; void this.flushUsage().catch(() => {}) }, 5000)
      this.flushTimer.unref()
    }
    return mark
  }

  /**
   * The call noted by `mark` was refused after all (its input, a scope): it is no use. Only
   * while its note is the latest and not yet written; a later call's note stands.
   */
  takeBackUse(mark: UseMark): void {
    const last = this.lastNote.get(mark.id)
    if (last?.mark !== mark) return
    this.lastNote.delete(mark.id)
    if (last.before === undefined) this.pendingUse.delete(mark.id)
    else this.pendingUse.set(mark.id, last.before)
  }

  /** Per credential, its latest note and the use it replaced, for takeBackUse. */
  private readonly lastNote = new Map<string, { readonly mark: UseMark; readonly before: number | undefined }>()

  async flushUsage(): Promise<void> {
    if (this.flushTimer) { clearTimeout(this.flushTimer); this.flushTimer = undefined }
    const entries = [...this.pendingUse]
    this.pendingUse.clear()
    this.lastNote.clear()
    for (const [id, at] of entries) {
      await this.database.db.updateTable('credentials').set({ last_used_at: at }).where('id', '=', id).execute()
      await this.database.db.updateTable('credentials').set({ first_used_at: at }).where('id', '=', id).where('first_used_at', 'is', null).execute()
    }
    for (const [id, at] of entries) this.configuredUse.set(id, at)
  }

  /** Last use of configured and legacy credentials, kept in memory (they have no row). */
  private readonly configuredUse = new Map<string, number>()

  async list(): Promise<CredentialRecord[]> {
    const rows = await this.database.db.selectFrom('credentials').selectAll().orderBy('created_at').execute()
    const managed = rows.map(fromRow).map((r) => ({ ...r, lastUsedAt: iso(this.pendingUse.get(r.id)) ?? r.lastUsedAt }))
    const configured = [...this.configured.values()].map((x) => ({
      ...x.record, lastUsedAt: iso(this.pendingUse.get(x.record.id) ?? this.configuredUse.get(x.record.id)),
    }))
    return [...configured, ...managed]
  }

  async get(id: string): Promise<CredentialRecord> {
    const row = await this.database.db.selectFrom('credentials').selectAll().where('id', '=', id).executeTakeFirst()
    if (!row) {
      const configured = [...this.configured.values()].find((x) => x.record.id === id)
      if (configured) return configured.record
      throw notFound(`No credential with id ${id}`)
    }
    return fromRow(row)
  }

  /** Whether a credential with this id exists (managed, configured or the legacy token). */
  async exists(id: string): Promise<boolean> {
    if ([...this.configured.values()].some((x) => x.record.id === id)) return true
    return (await this.database.db.selectFrom('credentials').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
  }

  /**
   * The caller a credential would be, whatever its status, for operators who ask what it
   * may do (the control panel's policy simulator). Never an authentication.
   */
  async callerFor(id: string): Promise<Caller> {
    const r = await this.get(id)
    return { credentialId: r.id, label: r.label, source: r.source, grantedScopes: r.scopes, scopes: effectiveScopes(r.scopes), boundaries: r.boundaries }
  }

  /** Number of credentials the runtime accepts (configured, legacy and usable managed ones). */
  async runtimeCredentialCount(): Promise<number> {
    const row = await this.database.db.selectFrom('credentials').select((eb) => eb.fn.countAll().as('n'))
      .where('status', '!=', 'revoked').executeTakeFirst()
    return this.configured.size + Number(row?.n ?? 0)
  }

  /** The problems of the members `input` gives (the rest unchecked): for a body's every bad member at once. */
  problemsOf(input: Partial<CreateCredentialInput>): ErrorDetail[] {
    return credentialProblems(input, this.scopes, this.eventTypes, true)
  }

  async create(input: CreateCredentialInput, by?: CredentialChangeActor): Promise<{ credential: CredentialRecord; token: string }> {
    checkInput(input, this.scopes, this.eventTypes)
    const token = generateToken()
    const id = generateId('cred')
    const now = Date.now()
    await this.changing(id, 'create', by, undefined, (tx) => tx.insertInto('credentials').values({
      id, label: input.label, token_digest: digestToken(token), token_hint: tokenHint(token),
      scopes: JSON.stringify([...new Set(input.scopes)]), ip_allowlist: JSON.stringify(input.ipAllowlist ?? []),
      webhook_interests: JSON.stringify(input.webhookInterests ?? []), boundaries: input.boundaries ? JSON.stringify(input.boundaries) : null,
      status: 'active', expires_at: input.expiresAt ? Date.parse(input.expiresAt) : null, created_at: now,
    }).execute())
    return { credential: await this.get(id), token }
  }

  async update(id: string, patch: Partial<CreateCredentialInput>, by?: CredentialChangeActor): Promise<CredentialRecord> {
    const current = await this.managed(id)
    checkInput({ ...current, ...patch }, this.scopes, this.eventTypes)
    const set: Record<string, unknown> = {}
    if (patch.label !== undefined) set.label = patch.label
    if (patch.scopes !== undefined) set.scopes = JSON.stringify([...new Set(patch.scopes)])
    if (patch.ipAllowlist !== undefined) set.ip_allowlist = JSON.stringify(patch.ipAllowlist)
    if (patch.webhookInterests !== undefined) set.webhook_interests = JSON.stringify(patch.webhookInterests)
    if (patch.boundaries !== undefined) set.boundaries = patch.boundaries ? JSON.stringify(patch.boundaries) : null
    if (patch.expiresAt !== undefined) set.expires_at = patch.expiresAt ? Date.parse(patch.expiresAt) : null
    const changed = Object.keys(patch).filter((k) => patch[k as keyof typeof patch] !== undefined)
    if (Object.keys(set).length > 0) await this.changing(id, 'update', by, changed, (tx) => tx.updateTable('credentials').set(set).where('id', '=', id).execute())
    this.cache.clear()
    return this.get(id)
  }

  async rotate(id: string, by?: CredentialChangeActor): Promise<{ credential: CredentialRecord; token: string }> {
    const current = await this.managed(id)
    if (current.status === 'revoked') throw new ApiError('CONFLICT', 'A revoked credential cannot be rotated')
    const token = generateToken()
    await this.changing(id, 'rotate', by, undefined, (tx) => tx.updateTable('credentials')
      .set({ token_digest: digestToken(token), token_hint: tokenHint(token), rotated_at: Date.now() })
      .where('id', '=', id).execute())
    this.cache.clear()
    return { credential: await this.get(id), token }
  }

  async setStatus(id: string, status: CredentialStatus, by?: CredentialChangeActor): Promise<CredentialRecord> {
    const current = await this.managed(id)
    const action = status === 'paused' ? 'pause' : status === 'revoked' ? 'revoke' : 'resume'
    if (current.status === 'revoked' && status !== 'revoked') throw new ApiError('CONFLICT', `A revoked credential cannot be ${action === 'pause' ? 'paused' : 'resumed'}`)
    await this.changing(id, action, by, undefined, (tx) => tx.updateTable('credentials').set({ status }).where('id', '=', id).execute())
    this.cache.clear()
    return this.get(id)
  }

  async delete(id: string, by?: CredentialChangeActor): Promise<void> {
    const record = await this.managed(id)
    await this.database.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('credentials').where('id', '=', id).execute()
      await this.onChange?.(tx, { action: 'delete', credential: record, by })
    })
    this.cache.clear()
  }

  /** Runs one lifecycle write and its change hook in one transaction. */
  private async changing(id: string, action: CredentialChange['action'], by: CredentialChangeActor | undefined, changed: readonly string[] | undefined, write: (tx: Db) => Promise<unknown>): Promise<void> {
    await this.database.db.transaction().execute(async (tx) => {
      await write(tx)
      if (!this.onChange) return
      const row = await tx.selectFrom('credentials').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
      await this.onChange(tx, { action, credential: fromRow(row), changed, by })
    })
  }

  private async managed(id: string): Promise<CredentialRecord> {
    const record = await this.get(id)
    if (record.source !== 'managed') throw new ApiError('CONFLICT', `Credential ${id} is kept in configuration; change it there`)
    return record
  }

  close(): Promise<void> {
    return this.flushUsage()
  }
}

function resolve(record: CredentialRecord): Resolved {
  return {
    record,
    allowlist: record.ipAllowlist.length > 0 ? new IpAllowlist(record.ipAllowlist) : null,
    expiresAtMs: record.expiresAt ? Date.parse(record.expiresAt) : null,
    scopes: effectiveScopes(record.scopes),
  }
}

const parseJson = <T>(v: unknown, fallback: T): T =>
  v === null || v === undefined ? fallback : typeof v === 'string' ? (JSON.parse(v) as T) : (v as T)

function fromRow(row: Record<string, unknown>): CredentialRecord {
  return {
    id: row.id as string,
    label: row.label as string,
    source: 'managed',
    tokenHint: row.token_hint as string,
    scopes: parseJson<string[]>(row.scopes, []),
    ipAllowlist: parseJson<string[]>(row.ip_allowlist, []),
    webhookInterests: parseJson<WebhookInterest[]>(row.webhook_interests, []),
    boundaries: parseJson<Boundaries | null>(row.boundaries, null),
    status: row.status as CredentialStatus,
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
    rotatedAt: iso(row.rotated_at),
    lastUsedAt: iso(row.last_used_at),
    firstUsedAt: iso(row.first_used_at),
  }
}

function unauthorized(message: string): ApiError {
  return new ApiError('UNAUTHORIZED', message, undefined, { 'WWW-Authenticate': 'Bearer realm="gatehouse"' })
}

function checkInput(input: Partial<CreateCredentialInput>, scopes: ScopeCatalog, eventTypes: readonly string[]): void {
  const problems = credentialProblems(input, scopes, eventTypes, false)
  if (problems.length > 0) throw invalidEach(problems)
}

/**
 * What is wrong with a credential's members. `partial`: only the members given are checked (a
 * change's, or those left once a body's badly typed ones are set aside), so a body's every bad
 * member can be named at once.
 */
function credentialProblems(input: Partial<CreateCredentialInput>, scopes: ScopeCatalog, eventTypes: readonly string[], partial: boolean): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  if ((!partial || input.label !== undefined) && (typeof input.label !== 'string' || input.label.trim() === '' || input.label.length > 200)) {
    problems.push({ param: 'label', problem: 'a non-empty string of at most 200 characters is required' })
  }
  if (partial && input.scopes === undefined) { /* not given */ }
  else if (!Array.isArray(input.scopes) || input.scopes.length === 0) problems.push({ param: 'scopes', problem: 'at least one scope is required' })
  else {
    const unknown = input.scopes.filter((sc) => !scopes.isKnown(sc))
    if (unknown.length > 0) problems.push({ param: 'scopes', problem: `unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((sc) => `"${sc}"`).join(', ')}; valid scopes: ${scopes.names().join(', ')}` })
  }
  for (const cidr of input.ipAllowlist ?? []) if (!parseCidr(cidr)) problems.push({ param: 'ipAllowlist', problem: `invalid CIDR "${cidr}"` })
  if (input.expiresAt && !isDateTime(input.expiresAt)) problems.push({ param: 'expiresAt', problem: 'not a date-time of a day that exists (RFC 3339 with a time zone)' })
  for (const w of input.webhookInterests ?? []) {
    // Callers other than the admin API (CLI, panel) pass unchecked JSON: no TypeError here.
    if (typeof w !== 'object' || w === null) { problems.push({ param: 'webhookInterests', problem: 'each interest is an object' }); continue }
    if (!eventTypes.includes(w.resourceType)) problems.push({ param: 'webhookInterests', problem: `unknown resourceType "${String(w.resourceType)}"; valid: ${eventTypes.join(', ')}` })
    if (!Array.isArray(w.actions) || w.actions.some((a) => !['created', 'updated', 'deleted'].includes(a))) {
      problems.push({ param: 'webhookInterests', problem: 'actions must be created, updated or deleted' })
    }
  }
  return problems
}

/** Parses `30d`, `12h`, `90m` into an ISO expiry from now. */
const MAX_EXPIRY_MS = 36_500 * 86_400_000

export function expiryFromDuration(text: string, now = Date.now()): string {
  const m = /^(\d+)([dhm])$/.exec(text.trim())
  if (!m) throw invalid('expiresIn', 'expected a duration like 30d, 12h or 90m')
  // Zero would make a credential expired before its first use.
  if (Number(m[1]) === 0) throw invalid('expiresIn', 'must be more than zero, like 30d, 12h or 90m')
  const unit = m[2] === 'd' ? 86_400_000 : m[2] === 'h' ? 3_600_000 : 60_000
  // Past it a date has no ISO form (a RangeError, reported as a malformed duration).
  if (Number(m[1]) * unit > MAX_EXPIRY_MS) throw invalid('expiresIn', 'at most 36500d (100 years)')
  return new Date(now + Number(m[1]) * unit).toISOString()
}

/**
 * Scopes given in settings, checked against the catalogue when the service starts (the
 * catalogue depends on the resource registry, which settings do not know): `*` or a typo
 * would otherwise start a credential that silently has less, or looks as if it had more.
 */
function knownScopes(setting: string, where: string, scopes: readonly string[], catalog: ScopeCatalog): readonly string[] {
  const unknown = scopes.filter((x) => !catalog.isKnown(x))
  if (unknown.length === 0) return scopes
  const wildcard = unknown.some((x) => x.includes('*')) ? '; wildcards are not scopes, list each scope' : ''
  throw new SettingsError(setting, `${where}unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((x) => `"${x}"`).join(', ')}${wildcard}`)
}
