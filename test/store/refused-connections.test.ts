// PostgreSQL refusing new connections is an outage like the others: a database set to
// ALLOW_CONNECTIONS false answers SQLSTATE 55000 ("not currently accepting connections") at
// connect, and connections ended by an operator answer class 57P. Both are 503
// SERVICE_UNAVAILABLE with Retry-After, never a 500, and service comes back by itself.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { pino } from 'pino'
import pg from 'pg'
import { buildApp } from '../../src/compose/app.js'
import { PG_URL, testDialects, testSettings } from '../helpers/test-app.js'

const ADMIN = 'admin-token-for-refused-connections'

async function onServer(sqlText: string): Promise<void> {
  const url = new URL(PG_URL)
  url.pathname = '/postgres'
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  try { await client.query(sqlText) } finally { await client.end() }
}

if ((await testDialects()).includes('postgres')) {
  test('postgres: a database that stops accepting connections (55000) and ends its sessions (57P01) answers 503 with Retry-After, then recovers', async (t) => {
    const name = `gatehouse_refusing_${randomBytes(4).toString('hex')}`
    await onServer(`CREATE DATABASE ${name}`)
    const url = new URL(PG_URL)
    url.pathname = `/${name}`
    const app = await buildApp({
      settings: testSettings({ PLUGIN_GATEHOUSE_DATABASE_URL: url.toString(), PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN }),
      logger: pino({ level: 'silent' }), webhookWorker: false,
    })
    t.after(async () => {
      await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`)
      await app.close()
      await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    })
    const { token } = await app.services.credentials.create({ label: 'refused', scopes: ['tags:read'] })
    const read = () => app.app.inject({ url: '/gatehouse/v1/tags', headers: { authorization: `Bearer ${token}` } })
    const write = (n: number) => app.app.inject({
      method: 'POST', url: '/gatehouse/admin/v1/tags', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ group: 'g', title: `T${n}`, slug: `t-${n}` }),
    })
    assert.equal((await read()).statusCode, 200)

    await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`)
    await onServer(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`)
    // The first answers may meet a pooled connection just terminated (57P01); the later ones
    // open new connections, which the server refuses with 55000.
    for (let i = 0; i < 4; i++) {
      for (const res of [await read(), await write(i)]) {
        assert.equal(res.statusCode, 503, res.body)
        assert.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
        assert.equal(res.headers['retry-after'], '5')
        // The error object only: the request id is random hex and may hold "55000" itself.
        assert.doesNotMatch(JSON.stringify(res.json().error), /accepting connections|55000|57P01|terminat/i)
      }
    }

    await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`)
    assert.equal((await read()).statusCode, 200)
    assert.equal((await write(99)).statusCode, 201)
  })
}
