// Waits for something that happens in the background (a worker's delivery, a batch write, a
// monitor's timer): polls `check` until it holds, or fails naming what did not happen.
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000, everyMs = 25): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
