// Shared by the provider tests: a temp redirects file, an app that loads providers with short
// availability timers, paging through a list, and waiting for a condition.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import { BASE_PATH } from '../../../src/kernel/machine-route.js'
import { buildTestApp, type TestApp } from '../../helpers/test-app.js'

export const REDIRECTS = `${BASE_PATH}/plugins/redirects/redirects`
export const REDIRECTS_SCOPE = 'plugins:redirects:redirects:read'

export interface RedirectRow {
  readonly id: string
  readonly from: string
  readonly to: string
  readonly statusCode?: number
  readonly enabled?: boolean
  readonly updatedAt?: string
}

export function csvOf(rows: readonly RedirectRow[]): string {
  const cell = (v: unknown) => (v === undefined ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v))
  return ['id,from,to,statusCode,enabled,updatedAt', ...rows.map((r) => [r.id, r.from, r.to, r.statusCode, r.enabled, r.updatedAt].map(cell).join(','))].join('\n') + '\n'
}

/** A directory removed after the test, with a redirects file in it. */
export function redirectsFile(t: TestContext, rows: readonly RedirectRow[], name = 'redirects.csv'): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-redirects-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, name)
  writeFileSync(file, csvOf(rows))
  return file
}

/** Replaces the file the way many editors save: write a new file, rename it over the old one. */
export function replaceFile(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text)
  renameSync(`${file}.tmp`, file)
}

export const TIMINGS = { checkIntervalMs: 50, callTimeoutMs: 5000 }

export async function redirectsApp(t: TestContext, file: string, env: Record<string, string> = {}): Promise<TestApp> {
  const app = await buildTestApp({
    dialect: 'sqlite', providers: TIMINGS,
    env: { PLUGIN_GATEHOUSE_PROVIDERS: 'redirects', PLUGIN_GATEHOUSE_REDIRECTS_FILE: file, ...env },
  })
  t.after(() => app.close())
  return app
}

/** Follows nextCursor to the end; returns every item and the size of each page. */
export async function listAll(app: TestApp, token: string, url: string): Promise<{ items: Record<string, unknown>[]; pages: number[] }> {
  const items: Record<string, unknown>[] = []
  const pages: number[] = []
  let cursor: string | null = null
  do {
    const res = await app.get(`${url}${url.includes('?') ? '&' : '?'}${cursor ? `cursor=${encodeURIComponent(cursor)}` : ''}`, token)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    items.push(...body.data)
    pages.push(body.data.length)
    assert.equal(body.pagination.hasMore, body.pagination.nextCursor !== null)
    cursor = body.pagination.nextCursor
    assert.ok(pages.length < 100, 'paging does not end')
  } while (cursor)
  return { items, pages }
}
