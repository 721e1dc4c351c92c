// Every page of a list: the first URL, then its `nextCursor` until there is none.
import assert from 'node:assert/strict'
import type { TestApp } from './test-app.js'

export async function everyPage(app: TestApp, token: string, first: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = []
  let cursor: string | null = null
  do {
    const url: string = `${first}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const res = await app.get(url, token)
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    out.push(...res.json().data)
    cursor = res.json().pagination.nextCursor
  } while (cursor)
  return out
}
