// An enumerated query parameter's unknown value is a 400 listing the allowed values, on every
// route (the list is derived from the route registry), instead of a 200 with an empty page;
// and a parameter that only counts with another one is refused without it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { TSchema } from '@sinclair/typebox'
import { BASE_PATH } from '../../src/kernel/machine-route.js'
import { allResources } from '../../src/resources/index.js'
import { buildTestApp, testDialects } from '../helpers/test-app.js'

const ALL_FLAGS = { PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true', PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true', PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true' }

/** The allowed values of an enumerated schema (a union of literals, or `enum`), else undefined. */
function allowedValues(s: TSchema): unknown[] | undefined {
  if (Array.isArray(s.enum)) return s.enum as unknown[]
  const branches = (s.anyOf ?? []) as TSchema[]
  return branches.length > 0 && branches.every((b) => b.const !== undefined) ? branches.map((b) => b.const) : undefined
}

test('every enumerated query parameter of every route answers an unknown value with a 400 listing the allowed ones', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: ALL_FLAGS })
  t.after(() => app.close())
  let checked = 0
  for (const route of app.routes.filter((r) => r.method === 'GET' && r.querystring && !r.path.includes(':'))) {
    const token = await app.issueToken([route.scope])
    for (const [name, schema] of Object.entries(route.querystring?.properties ?? {}) as [string, TSchema][]) {
      const values = allowedValues(schema)
      if (!values) continue
      // Other required parameters get a well-formed value so only this one is wrong.
      const others = (route.querystring?.required ?? []).filter((n) => n !== name).map((n) => `&${n}=x1`).join('')
      const res = await app.get(`${BASE_PATH}${route.path}?${name}=bogus-value${others}`, token)
      assert.equal(res.statusCode, 400, `${route.key} ${name}=bogus-value: ${res.body}`)
      assert.deepEqual(res.json().error.details.filter((d: { param: string }) => d.param === name),
        [{ param: name, problem: `must be one of: ${values.join(', ')}` }], `${route.key} ${name}`)
      checked++
    }
  }
  assert.ok(checked >= 20, `checked ${checked} enumerated parameters`)
})

test('a family\'s parameter compared with an enumerated property takes only its values', async (t) => {
  const app = await buildTestApp({ dialect: 'sqlite', env: ALL_FLAGS })
  t.after(() => app.close())
  let checked = 0
  for (const r of allResources) {
    const route = app.routes.find((x) => x.key === `${r.type}.list`)
    if (!route) continue
    for (const [name, p] of Object.entries(r.listParams ?? {})) {
      if (p.kind !== 'equals') continue
      const declared = allowedValues((r.properties[p.column] ?? {}) as TSchema)
      if (!declared) continue
      const param = route.querystring?.properties[name] as TSchema
      assert.deepEqual(allowedValues(param), declared, `${r.type}?${name} is enumerated like ${p.column}`)
      checked++
    }
  }
  // At least assets' kind and sections' type.
  assert.ok(checked >= 2)
})

for (const dialect of await testDialects()) {
  test(`${dialect}: /assets?kind= takes the declared kinds; lowStockThreshold needs lowStock=true`, async (t) => {
    const app = await buildTestApp({ dialect })
    t.after(() => app.close())
    await app.services.store.create('assets', { volume: 'media', folder: '', filename: 'a.png', kind: 'image', mimeType: 'image/png', size: 1 })
    const token = await app.issueToken(['assets:read', 'products:read'])
    const bogus = await app.get(`${BASE_PATH}/assets?kind=bogus`, token)
    assert.equal(bogus.statusCode, 400)
    assert.deepEqual(bogus.json().error.details, [{ param: 'kind', problem: 'must be one of: image, video, audio, pdf, text, other' }])
    const images = await app.get(`${BASE_PATH}/assets?kind=image`, token)
    assert.deepEqual(images.json().data.map((a: { filename: string }) => a.filename), ['a.png'])
    assert.deepEqual((await app.get(`${BASE_PATH}/assets?kind=video`, token)).json().data, [])

    for (const q of ['lowStockThreshold=5', 'lowStock=false&lowStockThreshold=5', 'lowStock=no&lowStockThreshold=0']) {
      const res = await app.get(`${BASE_PATH}/products?${q}`, token)
      assert.equal(res.statusCode, 400, q)
      assert.deepEqual(res.json().error.details, [{ param: 'lowStockThreshold', problem: 'needs lowStock=true' }], q)
    }
    assert.equal((await app.get(`${BASE_PATH}/products?lowStock=yes&lowStockThreshold=5`, token)).statusCode, 200)
    assert.equal((await app.get(`${BASE_PATH}/products?lowStock=true`, token)).statusCode, 200)
  })
}
