// Exponential backoff with jitter: the n-th retry waits base·2^(n-1), scaled by a random
// factor in [0.75, 1.25). The ranges of consecutive retries do not overlap, so intervals
// always grow, while jitter still spreads a burst of failures. A receiver's Retry-After
// lengthens the wait (it knows best when it can take traffic again) but never shortens it:
// `Retry-After: 0`, or a date already past, sent every attempt of a delivery within 0.1 s.
const MAX_DELAY_MS = 24 * 3600 * 1000

export function retryDelayMs(failedAttempts: number, baseMs: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  const exp = baseMs * 2 ** Math.max(0, failedAttempts - 1)
  const computed = Math.round(exp * (0.75 + 0.5 * random()))
  return Math.min(Math.max(retryAfterMs ?? 0, computed), MAX_DELAY_MS)
}
