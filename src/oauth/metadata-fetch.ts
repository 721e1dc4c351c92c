// How the authorization server fetches a client's metadata document (its client_id is a URL
// anyone can hand us): the outbound URL rules of webhooks (http(s), no userinfo, never a
// link-local or cloud-metadata address) and, because the URL comes from a stranger rather
// than an operator, no internal address either (loopback, RFC 1918, unique-local) unless
// PLUGIN_GATEHOUSE_OAUTH_METADATA_ALLOW_PRIVATE allows it. Every address the name resolves to
// is checked at connect time (so DNS cannot point a checked name elsewhere afterwards);
// redirects are not followed; the answer is bounded in time and size. It has fetch's shape
// because oidc-provider calls it as its `fetch`.
import http from 'node:http'
import https from 'node:https'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP } from 'node:net'
import { readFileSync } from 'node:fs'
import { rootCertificates } from 'node:tls'
import type { LookupFunction } from 'node:net'
import { isPrivateAddress, outboundUrlProblem } from '../kernel/outbound-url.js'

export interface MetadataFetchOptions {
  readonly allowPrivate: boolean
  /** A PEM file of extra certificate authorities (clients served with an internal CA). */
  readonly caFile?: string
  readonly timeoutMs?: number
  readonly maxBytes?: number
}

export type FetchLike = (url: string | URL, init?: { method?: string; headers?: unknown; signal?: AbortSignal }) => Promise<Response>

/** A fetch for metadata documents under the rules above. */
export function metadataFetch(opts: MetadataFetchOptions): FetchLike {
  const ca = opts.caFile ? [...rootCertificates, readFileSync(opts.caFile, 'utf8')] : undefined
  const timeoutMs = opts.timeoutMs ?? 5000
  const maxBytes = opts.maxBytes ?? 64 * 1024
  const lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0)
      const list = addresses as LookupAddress[]
      const refused = opts.allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address))
      if (refused) return callback(new Error(`${hostname} resolves to an internal address`), '', 0)
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list)
      callback(null, list[0].address, list[0].family)
    })
  }
  return (input, init = {}) => new Promise<Response>((resolve, reject) => {
    const url = new URL(String(input))
    const problem = outboundUrlProblem(url.href, opts.allowPrivate)
    if (problem) return reject(new Error(`client metadata URL refused: ${problem}`))
    // An address literal (`https://127.0.0.1`, `[::ffff:7f00:1]`, `2130706433` as the URL
    // parser reads it) is never looked up, so the lookup's check never sees it.
    const literal = url.hostname.replace(/^\[|\]$/g, '')
    if (!opts.allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal)) return reject(new Error(`client metadata URL refused: ${literal} is an internal address`))
    const secure = url.protocol === 'https:'
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Gatehouse-OAuth' }
    const req = (secure ? https : http).request(url, { method: init.method ?? 'GET', headers, lookup, ...(secure && ca ? { ca } : {}), timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > maxBytes) { req.destroy(new Error('client metadata document too large')); return }
        chunks.push(chunk)
      })
      res.on('end', () => {
        const h = new Headers()
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v)
        resolve(new Response(res.statusCode === 204 || res.statusCode === 304 ? null : Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: h }))
      })
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error('client metadata fetch timed out')))
    req.on('error', reject)
    init.signal?.addEventListener('abort', () => req.destroy(new Error('client metadata fetch aborted')), { once: true })
    req.end()
  })
}
