// One HTTP attempt: POST the exact body with its signed headers over node:http(s) with
// keep-alive agents (measured at about a quarter of fetch's CPU per request here, which
// is what bounds a worker's throughput). Redirects are not followed: a 3xx is a failed
// attempt, since the configured URL is the only destination the operator approved. The
// attempt is bounded by the timeout until the answer's status arrives; a 2xx then counts
// as delivered and the rest of the answer is read (bounded) to reuse the connection; its
// first bytes are kept as an excerpt for the delivery log, without holding up the outcome.
// Errors are described without the URL, which may carry credentials of its own.
import http from 'node:http'
import https from 'node:https'

export interface AttemptResult {
  readonly ok: boolean
  readonly statusCode: number | null
  /** Delay the receiver asked for with Retry-After, in milliseconds. */
  readonly retryAfterMs: number | null
  readonly error: string | null
  readonly durationMs: number
  /** The answer's first bytes, once read (within the timeout); null when there was no answer. */
  readonly answer: Promise<AnswerExcerpt | null>
}

export interface AnswerExcerpt {
  /** At most EXCERPT_BYTES of the body, as UTF-8 text. */
  readonly excerpt: string
  /** Bytes of the body read (reading stops past 64 KiB). */
  readonly bytes: number
}

/** How much of an answer's body the delivery log keeps. */
export const EXCERPT_BYTES = 1024
const MAX_RESPONSE_BYTES = 64 * 1024
const NO_ANSWER: Promise<AnswerExcerpt | null> = Promise.resolve(null)
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256 })
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 })

export function sendAttempt(url: string, body: string, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<AttemptResult> {
  const started = performance.now()
  let answer = NO_ANSWER
  const result = (r: Omit<AttemptResult, 'durationMs' | 'answer'>): AttemptResult => ({ ...r, durationMs: Math.round(performance.now() - started), answer })
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return Promise.resolve(result({ ok: false, statusCode: null, retryAfterMs: null, error: 'invalid webhook URL' }))
  }
  const secure = target.protocol === 'https:'
  return new Promise<AttemptResult>((resolve) => {
    // The first outcome wins: the answer's status, a socket error, or the timeout.
    const state: { settled: boolean; timer?: NodeJS.Timeout } = { settled: false }
    const finish = (r: Omit<AttemptResult, 'durationMs' | 'answer'>) => {
      if (state.settled) return
      state.settled = true
      clearTimeout(state.timer)
      resolve(result(r))
    }
    const req = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? httpsAgent : httpAgent,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    }, (res) => {
      const status = res.statusCode ?? 0
      const ok = status >= 200 && status < 300
      if (!state.settled) answer = drain(res, timeoutMs)
      else res.destroy()
      finish({
        ok,
        statusCode: status,
        retryAfterMs: ok ? null : parseRetryAfter(headerValue(res.headers['retry-after'])),
        error: ok ? null : status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
      })
    })
    req.on('error', (err) => finish({ ok: false, statusCode: null, retryAfterMs: null, error: describe(err) }))
    state.timer = setTimeout(() => {
      finish({ ok: false, statusCode: null, retryAfterMs: null, error: `timeout after ${timeoutMs / 1000}s` })
      req.destroy()
    }, timeoutMs)
    req.end(body)
  })
}

/**
 * Reads a bounded answer so the connection can be reused, keeping its first EXCERPT_BYTES;
 * gives up on huge or slow ones. Resolves when the answer ends or is given up.
 */
function drain(res: http.IncomingMessage, timeoutMs: number): Promise<AnswerExcerpt> {
  return new Promise((resolve) => {
    let seen = 0
    const kept: Buffer[] = []
    let keptBytes = 0
    const giveUp = setTimeout(() => res.destroy(), timeoutMs)
    res.on('data', (chunk: Buffer) => {
      seen += chunk.length
      if (keptBytes < EXCERPT_BYTES) {
        const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes)
        kept.push(part)
        keptBytes += part.length
      }
      if (seen > MAX_RESPONSE_BYTES) res.destroy()
    })
    res.on('close', () => {
      clearTimeout(giveUp)
      // PostgreSQL text cannot hold U+0000; a binary answer shows replacement characters.
      resolve({ excerpt: Buffer.concat(kept).toString('utf8').replaceAll('\u0000', '\uFFFD'), bytes: seen })
    })
    res.on('error', () => {})
  })
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? null

/** Retry-After as delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS)
  const at = Date.parse(text)
  if (Number.isNaN(at)) return null
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS)
}

function describe(err: unknown): string {
  const code = (err as { code?: string } | null)?.code
  return code ? `connection failed (${code})` : 'connection failed'
}
