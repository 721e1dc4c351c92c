// Which methods each registered path answers, and the answer to a request no route matched:
// authentication first (an unknown path tells an anonymous caller nothing), then 405 with
// Allow for a known path asked with another method, otherwise 404. The machine API and the
// admin API decide alike (DESIGN §4 order of checks), so they share this table.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../kernel/errors.js'
import { sendError } from './error-handler.js'

/** A route URL (`/x/:id`) as a pattern matching its paths, with or without a trailing slash. */
const toRegex = (url: string) => new RegExp('^' + url.replace(/:[A-Za-z]+/g, '[^/]+') + '/?$')

export class RouteTable {
  private readonly paths: { regex: RegExp; methods: Set<string> }[] = []

  /**
   * `headWithGet`: Allow names HEAD wherever GET is allowed. For a table fed only the methods
   * routes declare (Fastify answers HEAD for every GET route by itself); a table fed from the
   * `onRoute` hook sees those HEAD routes already.
   */
  constructor(private readonly options: { readonly headWithGet?: boolean } = {}) {}

  add(url: string, methods: readonly string[]): void {
    const regex = toRegex(url)
    const entry = this.paths.find((p) => p.regex.source === regex.source)
    if (entry) methods.forEach((m) => entry.methods.add(m))
    else this.paths.push({ regex, methods: new Set(methods) })
  }

  /** The Allow header for `path` (methods in the order routes added them), or undefined for an unknown path. */
  allow(path: string): string | undefined {
    const known = this.paths.find((p) => p.regex.test(path))
    if (!known) return undefined
    const head = this.options.headWithGet && known.methods.has('GET') ? ['HEAD'] : []
    return [...known.methods, ...head].join(', ')
  }
}

export interface Unmatched {
  readonly table: RouteTable
  /** The API's own authentication; its ApiError (401, 429…) is the answer. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>
  /** The 404 message for a path no route has. */
  readonly notFound: (method: string, path: string) => string
}

/** Answers a request no route matched (a Fastify not-found handler's body). */
export async function sendUnmatched(request: FastifyRequest, reply: FastifyReply, opts: Unmatched): Promise<FastifyReply> {
  reply.header('Cache-Control', 'no-store')
  try {
    await opts.authenticate(request, reply)
  } catch (err) {
    if (err instanceof ApiError) return sendError(reply, request, err)
    throw err
  }
  const path = request.url.split('?')[0]
  const allow = opts.table.allow(path)
  if (allow === undefined) return sendError(reply, request, new ApiError('NOT_FOUND', opts.notFound(request.method, path)))
  reply.header('Allow', allow)
  return sendError(reply, request, new ApiError('METHOD_NOT_ALLOWED', `Method ${request.method} is not allowed on ${path}; allowed: ${allow}`))
}
