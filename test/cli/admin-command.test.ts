// `gatehouse admin create` stores a scrypt hash (never the password) that verifies.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { verifyAdminLogin } from '../../src/auth/admin-accounts.js'
import { cliDatabase, runCli } from './helpers/cli.js'

test('admin create --password-stdin stores a verifiable scrypt hash; bad input is refused', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
  const password = 'correct horse battery staple'

  const created = await runCli(['admin', 'create', '--username', 'ops', '--password-stdin'], { env, input: `${password}\n` })
  assert.equal(created.code, 0, created.stderr)
  assert.equal(created.stdout, 'Created admin ops\n')

  const database = target.open()
  t.after(() => database.close())
  const row = await database.db.selectFrom('admins').selectAll().executeTakeFirstOrThrow()
  assert.equal(row.username, 'ops')
  assert.match(row.password_hash as string, /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/)
  assert.ok(!(row.password_hash as string).includes(password))
  // The trailing newline from stdin is not part of the password.
  assert.ok(await verifyAdminLogin(database.db, 'ops', password))
  assert.equal(await verifyAdminLogin(database.db, 'ops', password + '\n'), undefined)
  assert.equal(await verifyAdminLogin(database.db, 'nobody', password), undefined)

  const duplicate = await runCli(['admin', 'create', '--username', 'ops', '--password-stdin'], { env, input: password })
  assert.equal(duplicate.code, 1)
  assert.equal(duplicate.stderr, 'gatehouse: Admin ops already exists\n')

  const short = await runCli(['admin', 'create', '--username', 'dev', '--password-stdin'], { env, input: 'short' })
  assert.equal(short.code, 1)
  assert.equal(short.stderr, 'gatehouse: invalid password: must be at least 10 characters\n')

  // Names admin tokens decide and are audited under would make an admin the same decider as a token.
  for (const name of ['adm_-4gzMQCPIe6l', 'admin-token']) {
    const taken = await runCli(['admin', 'create', '--username', name, '--password-stdin'], { env, input: password })
    assert.equal(taken.code, 1)
    assert.equal(taken.stderr, 'gatehouse: invalid --username: adm_… and admin-token name admin tokens; choose another\n')
  }

  // No terminal and no --password-stdin: say how to pass it rather than hang.
  const noTty = await runCli(['admin', 'create', '--username', 'dev'], { env })
  assert.equal(noTty.code, 1)
  assert.equal(noTty.stderr, 'gatehouse: no terminal to prompt for a password; pipe it in with --password-stdin\n')

  const listed = JSON.parse((await runCli(['admin', 'list', '--json'], { env })).stdout)
  assert.deepEqual(listed.map((a: { username: string }) => a.username), ['ops'])
})
