// Helpers for admin API tests: an app with the admin token configured, a small client
// that speaks to /gatehouse/admin/v1, and direct reads of the database to check what a
// request did (or did not) write.
import type { DialectName } from '../../../src/store/database.js'
import type { Db } from '../../../src/store/database.js'
import { buildTestApp, type TestApp, type TestResponse } from '../../helpers/test-app.js'

export const ADMIN_TOKEN = 'adm_test_3b0c8e5f2d9a4716b1e0c7d2a5f8e3b6'
export const ADMIN = '/gatehouse/admin/v1'

export async function adminTestApp(dialect: DialectName, env: Record<string, string> = {}): Promise<TestApp> {
  return buildTestApp({ dialect, env: { PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN, ...env } })
}

export interface AdminClient {
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>
  patch(path: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>
  del(path: string, headers?: Record<string, string>): Promise<TestResponse>
}

/** Calls the admin API with the admin token (or `token`, or none when null). */
export function adminClient(app: TestApp, token: string | null = ADMIN_TOKEN): AdminClient {
  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await app.app.inject({
      method,
      url: ADMIN + path,
      headers: {
        ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    return { statusCode: res.statusCode, headers: res.headers, body: res.body, json: () => JSON.parse(res.body) }
  }
  return {
    get: (path, headers) => call('GET', path, undefined, headers),
    post: (path, body, headers) => call('POST', path, body, headers),
    patch: (path, body, headers) => call('PATCH', path, body, headers),
    del: (path, headers) => call('DELETE', path, undefined, headers),
  }
}

/** `data` of a success answer, after checking the status and the envelope. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function dataOf(res: TestResponse, status = 200): any {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`)
  const body = res.json()
  if (body.ok !== true || typeof body.requestId !== 'string') throw new Error(`not a success envelope: ${res.body}`)
  return body.data
}

export interface ChangeRowView {
  readonly seq: number
  readonly resourceType: string
  readonly resourceId: number
  readonly action: string
}

/** Change log rows, optionally for one change type and record. */
export async function changeRows(db: Db, where: { type?: string; id?: number } = {}): Promise<ChangeRowView[]> {
  let q = db.selectFrom('change_log').select(['seq', 'resource_type', 'resource_id', 'action']).orderBy('seq')
  if (where.type) q = q.where('resource_type', '=', where.type)
  if (where.id !== undefined) q = q.where('resource_id', '=', where.id)
  const rows = await q.execute()
  return rows.map((r) => ({ seq: Number(r.seq), resourceType: r.resource_type as string, resourceId: Number(r.resource_id), action: r.action as string }))
}

export async function countRows(db: Db, table: string): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()
  return Number(row?.n ?? 0)
}
