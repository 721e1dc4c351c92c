// Route validators are compiled when a route first validates, not when the app is built
// (a fifth of a server's start-up): building an app compiles nothing, and a late-compiled
// validator answers as an early one did: the errors of each call on the function Fastify
// holds, the text parts coerced in place, the same checks on the next app's routes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifySchemaCompiler } from 'fastify'
import { validatorCompiler } from '../../src/api/validator-compiler.js'
import { buildTestApp } from '../helpers/test-app.js'

type Route = Parameters<FastifySchemaCompiler<unknown>>[0]
type Validate = ((data: unknown, context?: unknown) => boolean) & { errors?: { instancePath: string; keyword: string }[] | null }

const route = (schema: unknown, httpPart: string): Route => ({ schema, method: 'POST', url: '/x', httpPart } as unknown as Route)

test('a validator compiles on its first call: a schema Ajv refuses fails there, not when the route is registered', () => {
  const compile = validatorCompiler()
  const validate = compile(route({ type: 'not-a-type' }, 'body')) as unknown as Validate
  assert.throws(() => validate({}), /type/)
})

test('each call leaves its own errors on the function Fastify holds, and the text parts are coerced in place', () => {
  const compile = validatorCompiler()
  const body = compile(route({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, 'body')) as unknown as Validate
  assert.equal(body({ n: '7' }), false, 'a JSON body is not coerced')
  assert.deepEqual(body.errors?.map((e) => [e.instancePath, e.keyword]), [['/n', 'type']])
  assert.equal(body({ n: 7 }), true)
  assert.equal(body.errors, null, 'a passing call clears the errors of the one before')

  const query = compile(route({ type: 'object', properties: { limit: { type: 'integer' } } }, 'querystring')) as unknown as Validate
  const request = { query: { limit: '10' } }
  assert.equal(query(request.query, { parentData: request, parentDataProperty: 'query' }), true)
  assert.deepEqual(request.query, { limit: 10 })
})

test('a route validates the same when compiled late: a bad limit is a 400 naming it, a good one coerced', async () => {
  const app = await buildTestApp({ dialect: 'sqlite' })
  try {
    const token = await app.issueToken(['entries:read'])
    let res = await app.get('/gatehouse/v1/entries?limit=zero', token)
    assert.equal(res.statusCode, 400, res.body)
    assert.deepEqual(res.json().error.details.map((d: { param: string }) => d.param), ['limit'])
    res = await app.get('/gatehouse/v1/entries?limit=2', token)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.length <= 2, true)
  } finally {
    await app.close()
  }
})
