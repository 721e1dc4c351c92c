// A client generated from the document works: openapi-typescript turns /openapi.json into
// types, tsc (strict) compiles them with a small openapi-fetch client that also holds
// deliberate misuses (@ts-expect-error proves the types reject them), and the client then
// reads products from the live app.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { pathToFileURL } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import { tsImport } from 'tsx/esm/api'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { buildTestApp } from '../helpers/test-app.js'
import { seedSmallCatalog } from '../helpers/fixtures.js'
import { NODE_TIERING } from '../helpers/cli-command.js'

const run = promisify(execFile)

const CLIENT = `import createClient from 'openapi-fetch'
import type { components, paths } from './gatehouse-api.js'

export type Product = components['schemas']['ProductsItem']

export function gatehouse(baseUrl: string, token: string, fetch: (request: Request) => Promise<Response>) {
  return createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${token}\` }, fetch })
}

export async function productTitles(client: ReturnType<typeof gatehouse>): Promise<{ titles: (string | undefined)[]; hasMore: boolean; mode: 'full' | 'incremental' }> {
  const { data, error } = await client.GET('/products', { params: { query: { limit: 10, status: 'live', sort: 'title' } } })
  if (error) throw new Error(error.error.code + ': ' + error.error.message)
  const titles = data.data.map((p: Product) => p.title)
  return { titles, hasMore: data.pagination.hasMore, mode: data.meta.mode }
}

export async function missingProduct(client: ReturnType<typeof gatehouse>): Promise<string | undefined> {
  const { error } = await client.GET('/products/show', { params: { query: { slug: 'no-such-product' } } })
  return error?.error.code
}

export function misuses(client: ReturnType<typeof gatehouse>): void {
  // @ts-expect-error limit is an integer
  void client.GET('/products', { params: { query: { limit: 'ten' } } })
  // @ts-expect-error status takes only the declared values
  void client.GET('/products', { params: { query: { status: 'archived' } } })
  // @ts-expect-error there is no such path
  void client.GET('/no-such-path')
  // @ts-expect-error the checkpoint body needs resourceType
  void client.POST('/sync-state/checkpoint', { body: { cursor: 'x' } })
}
`

test('openapi-typescript types compile with a typed client call, and that client reads the live API', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  t.after(() => app.close())
  await seedSmallCatalog(app.services.store)
  const token = await app.issueToken(['openapi:read', 'products:read'])
  const doc = (await app.get(`${BASE_PATH}/openapi.json`, token)).json()

  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-client-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }))
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], types: [], skipLibCheck: true, noUncheckedIndexedAccess: true },
    files: ['gatehouse-api.ts', 'client.ts'],
  }))
  const types = astToString(await openapiTS(doc))
  assert.match(types, /"\/products": \{/)
  assert.match(types, /ProductsItem: \{/)
  // A .ts file (not .d.ts) so that skipLibCheck cannot hide an error in the generated types.
  writeFileSync(join(dir, 'gatehouse-api.ts'), types)
  writeFileSync(join(dir, 'client.ts'), CLIENT)

  const tsc = await run(process.execPath, [...NODE_TIERING, resolve('node_modules/typescript/bin/tsc'), '-p', dir]).then(
    () => ({ ok: true, out: '' }),
    (err: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
  )
  assert.equal(tsc.out, '')
  assert.ok(tsc.ok)

  // The same client against the app, through inject instead of a socket.
  const viaInject = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    const res = await app.app.inject({ method: request.method as 'GET', url: url.pathname + url.search, headers: Object.fromEntries(request.headers) })
    return new Response(res.body, { status: res.statusCode, headers: { 'content-type': String(res.headers['content-type']) } })
  }
  // TypeScript, loaded as such whether this file runs through tsx or bundled (npm test).
  const client = await tsImport(pathToFileURL(join(dir, 'client.ts')).href, import.meta.url)
  const api = client.gatehouse(`http://gatehouse.test${BASE_PATH}`, token, viaInject)
  assert.deepEqual(await client.productTitles(api), { titles: ['Blue shirt', 'Gift card'], hasMore: false, mode: 'full' })
  assert.equal(await client.missingProduct(api), 'NOT_FOUND')
})
