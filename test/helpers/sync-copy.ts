// What a sync worker's copy should hold: every record of its types that its credential may see
// now, read through the machine API's lists (the example worker's COPY_LISTS), keyed as the
// worker keys its copy (`type:id`).
import type { TestApp } from './test-app.js'
import { COPY_LISTS } from '../../examples/sync-worker/sync-worker.mjs'

export async function visibleCopy(app: TestApp, token: string, types: readonly string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const type of types) {
    const list = (COPY_LISTS as Record<string, string>)[type]
    let url = `/gatehouse/v1${list}${list.includes('?') ? '&' : '?'}limit=200`
    for (;;) {
      const res = await app.get(url, token)
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
      const page = res.json()
      for (const record of page.data as { id: number }[]) out[`${type}:${record.id}`] = record
      if (!page.pagination.hasMore) break
      url = `/gatehouse/v1${list}${list.includes('?') ? '&' : '?'}limit=200&cursor=${encodeURIComponent(page.pagination.nextCursor)}`
    }
  }
  return out
}
