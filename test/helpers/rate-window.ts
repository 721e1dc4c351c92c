// The rate limiter counts in windows aligned to the minute (src/auth/rate-limit.ts). A test
// that spends a budget down to its 429 must not straddle a window's end: the requests after it
// get a fresh budget, and the expected 429 comes back 200.

/** Waits for the next window when fewer than `ms` are left in this one. */
export async function clearOfRateWindowEnd(ms = 10_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < ms) await new Promise((resolve) => setTimeout(resolve, left + 50))
}
