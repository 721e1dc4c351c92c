// `gatehouse serve --workers N` runs N serving processes on one port: all of them answer, a
// write through one is read through the others at once (their page caches follow the
// database), a worker that dies is replaced, and a signal stops them all.
// npm test: timing (serving processes replaced and stopped by signals)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { get as httpGet } from 'node:http'
import { readFileSync } from 'node:fs'
import { ROOT, cliArgs, cliDatabase, cliEnv } from './helpers/cli.js'
import { untilValue } from '../helpers/until.js'

const TOKEN = 'workers-test-token'
const ADMIN = 'workers-test-admin-token'

const children = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)

test('serve --workers 2: two processes answer on one port, share writes, are replaced when one dies, and stop together', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const child = spawn(process.execPath, cliArgs(['serve', '--workers', '2', '--port', '0']), {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    env: cliEnv({ PLUGIN_GATEHOUSE_DATABASE_URL: target.url, PLUGIN_GATEHOUSE_API_TOKEN: TOKEN, PLUGIN_GATEHOUSE_ADMIN_TOKEN: ADMIN, PLUGIN_GATEHOUSE_RATE_LIMIT_PER_MINUTE: '0' }),
  })
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let out = ''
  let err = ''
  child.stdout?.on('data', (d: Buffer) => { out += d.toString() })
  child.stderr?.on('data', (d: Buffer) => { err += d.toString() })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))

  const base = await untilValue(() => /^Gatehouse listening on (http:\/\/\S+) \(2 worker processes\)$/m.exec(out)?.[1], 'the listening line', 60_000, 100)
  const workers = children(child.pid ?? 0)
  assert.equal(workers.length, 2, `two worker processes under the primary\n${err}`)

  // Both workers answer: each request on a connection of its own (no keep-alive), which the
  // primary hands to the workers in turn.
  const list = () => new Promise<string[]>((resolve, reject) => {
    httpGet(`${base}/gatehouse/v1/tags?limit=50`, { agent: false, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => { body += d.toString() })
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${res.statusCode}: ${body}`))
        resolve((JSON.parse(body) as { data: { title: string }[] }).data.map((x) => x.title))
      })
    }).on('error', reject)
  })
  for (let i = 0; i < 8; i++) assert.deepEqual(await list(), [])
  // A write through whichever worker takes it is read through every worker right away,
  // although each cached the empty page above.
  const created = await fetch(`${base}/gatehouse/admin/v1/tags`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ title: 'Shared', slug: 'shared', group: 'topics' }),
  })
  assert.equal(created.status, 201, await created.text())
  for (let i = 0; i < 8; i++) assert.deepEqual(await list(), ['Shared'])

  // A worker that dies is replaced; the other goes on serving meanwhile.
  process.kill(workers[0], 'SIGKILL')
  const replaced = await untilValue(() => {
    const now = children(child.pid ?? 0)
    return now.length === 2 && !now.includes(workers[0]) ? now : undefined
  }, 'a replacement worker', 30_000, 100)
  assert.ok(replaced.includes(workers[1]))
  for (let i = 0; i < 4; i++) assert.deepEqual(await list(), ['Shared'])

  // Stopped right away: the replacement may still be starting, and must stop all the same.
  child.kill('SIGTERM')
  assert.equal(await exited, 0, err)
  assert.match(err, /stopping 2 worker\(s\)/)
  assert.match(err, /Gatehouse: stopped/)
})
