// Waits for something that happens in the background (a worker's delivery, a batch write, a
// monitor's timer, a child process's output): polls until it holds, or fails naming what did
// not happen.

/** Polls `probe` until it gives a value (not undefined) and returns that value. */
export async function untilValue<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 15_000, everyMs = 25): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

/** Polls `check` until it holds. */
export async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000, everyMs = 25): Promise<void> {
  await untilValue(async () => ((await check()) ? true : undefined), what, timeoutMs, everyMs)
}
