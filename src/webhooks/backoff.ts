// Exponential backoff with jitter: the n-th retry waits base·2^(n-1), scaled by a random
// factor in [0.75, 1.25). The ranges of consecutive retries do not overlap, so intervals
// always grow, while jitter still spreads a burst of failures. A receiver's Retry-After
// replaces the computed delay: it knows best when it can take traffic again.
const MAX_DELAY_MS = 24 * 3600 * 1000

export function retryDelayMs(failedAttempts: number, baseMs: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, MAX_DELAY_MS)
  const exp = baseMs * 2 ** Math.max(0, failedAttempts - 1)
  return Math.min(Math.round(exp * (0.75 + 0.5 * random())), MAX_DELAY_MS)
}
