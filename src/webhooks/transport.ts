// One HTTP attempt: POST the exact body with its signed headers. Redirects are not
// followed (a 3xx is a failed attempt: the configured URL is the only destination the
// operator approved). The whole attempt, body included, is bounded by the timeout. Errors
// are described without the URL, which may carry credentials of its own.
export interface AttemptResult {
  readonly ok: boolean
  readonly statusCode: number | null
  /** Delay the receiver asked for with Retry-After, in milliseconds. */
  readonly retryAfterMs: number | null
  readonly error: string | null
  readonly durationMs: number
}

const MAX_RESPONSE_BYTES = 64 * 1024
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000

export async function sendAttempt(url: string, body: string, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<AttemptResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const res = await fetch(url, { method: 'POST', body, headers, redirect: 'manual', signal })
    await drain(res)
    const ok = res.status >= 200 && res.status < 300
    return {
      ok,
      statusCode: res.status,
      retryAfterMs: ok ? null : parseRetryAfter(res.headers.get('retry-after')),
      error: ok ? null : res.status >= 300 && res.status < 400 ? `HTTP ${res.status} (redirects are not followed)` : `HTTP ${res.status}`,
      durationMs: elapsed(),
    }
  } catch (err) {
    return { ok: false, statusCode: null, retryAfterMs: null, error: describe(err, signal.aborted, timeoutMs), durationMs: elapsed() }
  }
}

/** Reads (and discards) a bounded part of the answer so the connection can be reused. */
async function drain(res: Response): Promise<void> {
  if (!res.body) return
  const reader = res.body.getReader()
  let seen = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    seen += value.byteLength
    if (seen > MAX_RESPONSE_BYTES) {
      await reader.cancel()
      return
    }
  }
}

/** Retry-After as delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS)
  const at = Date.parse(text)
  if (Number.isNaN(at)) return null
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS)
}

function describe(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout after ${timeoutMs / 1000}s`
  const cause = (err as { cause?: { code?: string } } | null)?.cause
  if (cause?.code) return `connection failed (${cause.code})`
  return 'connection failed'
}
