// `subscriptions/listen` (MCP 2026-07-28) for record resources, fed by the commit-ordered
// change feed. A stream watches `gatehouse://records/<family>` and `…/<family>/<id>` URIs;
// it reads the feed after the position it started at, as the caller (listChanges: the
// family's read scope, owner visibility, the read boundary are the feed's own), and sends
// `notifications/resources/updated` for each change to a watched URI with `_meta.position`, the
// feed position `GET /changes?after=`, `GET /changes/position`, list_changes and webhooks
// name the same way. It wakes on every commit the process hears of (ChangeSignal: this
// process's, and on PostgreSQL every process's through LISTEN/NOTIFY) and, to catch another
// SQLite process, when the database's data version moved since it last looked.
//
// Served here rather than by the SDK's listen router: that router's events carry a URI and
// nothing else, and go to every stream alike, while here each stream reads as its own
// caller and each notification carries the position.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Caller } from '../kernel/caller.js'
import { listChanges } from '../operations/list-changes.js'
import { feedPosition } from '../operations/feed-position.js'
import type { Services } from '../operations/services.js'
import type { McpMessage } from './mcp-messages.js'
import { rpcError } from './mcp-messages.js'
import type { ToolContext } from './mcp-tool.js'
import { parseRecordUri, recordUri } from './record-resources.js'

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'
export const FEED_SCOPE = 'changes:read'
/** How often a stream looks whether another process committed (SQLite), and the keep-alive comment. */
export const LISTEN_TIMING = Object.freeze({ pollMs: 250, keepAliveMs: 15_000, pageSize: 200 })

interface ChangeItem { position: number; resourceType: string; resourceId: number; action: string }

/**
 * Streams one credential holds open at once. Every commit wakes each stream, which reads the
 * feed: unbounded, one token's 4,000 streams made every other request wait seconds. Opening one
 * more ends the credential's oldest, gracefully (as sessions do: a client that reconnects
 * without closing is not locked out).
 */
export const STREAMS_PER_CREDENTIAL = 10

export class ChangeSubscriptions {
  private readonly open = new Set<(graceful: boolean) => void>()
  /** Each credential's open streams, oldest first. */
  private readonly byCredential = new Map<string, ((graceful: boolean) => void)[]>()

  constructor(private readonly services: Services) {}

  /** Ends every stream with the graceful completion result (the server is shutting down). */
  closeAll(): void {
    for (const end of [...this.open]) end(true)
  }

  async listen(request: FastifyRequest, reply: FastifyReply, message: McpMessage, ctx: ToolContext): Promise<FastifyReply | undefined> {
    const { services } = this
    const { caller } = ctx
    const filter = message.params.notifications
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
      return rpcError(reply, 200, -32602, "Invalid params: 'notifications' is required: an object such as {\"resourceSubscriptions\": [\"gatehouse://records/products\"]}", message.id)
    }
    const asked = (filter as { resourceSubscriptions?: unknown }).resourceSubscriptions
    if (asked !== undefined && (!Array.isArray(asked) || asked.some((u) => typeof u !== 'string'))) {
      return rpcError(reply, 200, -32602, 'Invalid params: notifications.resourceSubscriptions must be an array of resource URIs', message.id)
    }
    const uris = [...new Set((asked ?? []) as string[])]
    if (uris.length > 0 && !caller.scopes.has(FEED_SCOPE)) {
      return rpcError(reply, 200, -32602, `Missing required scope: ${FEED_SCOPE} (resource subscriptions are delivered from the change feed)`, message.id)
    }
    // What cannot be watched (an unknown URI, a family the caller cannot read) is left out of
    // the acknowledgement, which is how the protocol says "not honoured".
    const watched = new Map<string, string>()
    for (const uri of uris) {
      const target = parseRecordUri(services, caller, uri)
      if (typeof target !== 'string') watched.set(uri, target.family.changeType)
    }
    const types = [...new Set(watched.values())]
    let position = (await feedPosition(services)).position

    reply.hijack()
    const res = reply.raw
    res.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' })
    const id = message.id
    const send = (payload: Record<string, unknown>) => res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...payload })}\n\n`)
    send({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { resourceSubscriptions: [...watched.keys()] }, _meta: { [SUBSCRIPTION_ID]: id } } })

    let reading = false
    let again = false
    let lastVersion = services.changes.version()
    const read = async () => {
      if (types.length === 0) return
      if (reading) {
        again = true
        return
      }
      reading = true
      try {
        do {
          again = false
          position = await this.deliver(caller, types, watched, position, (uri, at) => send({ method: 'notifications/resources/updated', params: { uri, _meta: { [SUBSCRIPTION_ID]: id, position: at } } }))
        } while (again)
      } catch (err) {
        // A failed read (the database away) is tried again at the next wake-up, from the same position.
        services.logger.warn({ err, requestId: request.id }, 'MCP subscription could not read the change feed')
      } finally {
        reading = false
      }
    }
    const unsubscribe = services.changes.subscribe(() => void read())
    const poll = setInterval(() => {
      const version = services.changes.version()
      if (version === undefined || version !== lastVersion) {
        lastVersion = version
        void read()
      }
    }, LISTEN_TIMING.pollMs)
    const keepAlive = setInterval(() => res.write(': keepalive\n\n'), LISTEN_TIMING.keepAliveMs)
    const end = (graceful: boolean) => {
      if (!this.open.delete(end)) return
      const held = this.byCredential.get(caller.credentialId) ?? []
      held.splice(held.indexOf(end), 1)
      if (held.length === 0) this.byCredential.delete(caller.credentialId)
      unsubscribe()
      clearInterval(poll)
      clearInterval(keepAlive)
      if (graceful && !res.writableEnded) send({ id, result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: id } } })
      res.end()
    }
    const held = this.byCredential.get(caller.credentialId) ?? []
    while (held.length >= STREAMS_PER_CREDENTIAL) (held[0] as (graceful: boolean) => void)(true)
    held.push(end)
    this.byCredential.set(caller.credentialId, held)
    this.open.add(end)
    res.on('close', () => end(false))
    return undefined
  }

  /** Sends the changes after `from` to watched URIs; answers the position read up to. */
  private async deliver(caller: Caller, types: readonly string[], watched: ReadonlyMap<string, string>, from: number, notify: (uri: string, position: number) => void): Promise<number> {
    let position = from
    for (;;) {
      const page = await listChanges(this.services, { after: position, limit: LISTEN_TIMING.pageSize, types: types.join(',') }, caller)
      const items = (JSON.parse(page.rawData) as ChangeItem[])
      for (const item of items) {
        const family = this.services.resources.byChangeType(item.resourceType)
        if (family) {
          for (const uri of [recordUri(family.type), recordUri(family.type, item.resourceId)]) if (watched.has(uri)) notify(uri, item.position)
        }
        position = Math.max(position, item.position)
      }
      if (items.length < LISTEN_TIMING.pageSize) return position
    }
  }
}
