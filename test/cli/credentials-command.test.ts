// `gatehouse credentials …`: the token is printed once at create and rotate, listings never
// carry it, and lifecycle changes take effect for the API's own authentication.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CredentialService } from '../../src/auth/credentials.js'
import { ApiError } from '../../src/kernel/errors.js'
import { testSettings } from '../helpers/test-app.js'
import { cliDatabase, runCli } from './helpers/cli.js'
import { defaultScopes } from '../helpers/scopes.js'
import { defaultRegistry } from '../../src/resources/index.js'

const credentialOptions = { scopes: defaultScopes, eventTypes: defaultRegistry.eventTypes }

/** Runs the CLI against `env`, asserting success. */
function cliFor(env: Record<string, string>) {
  return async (...args: string[]) => {
    const res = await runCli(args, { env })
    assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`)
    return res
  }
}

test('create without --json prints the new token once, with the warning, for credentials and admin tokens', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const cli = cliFor({ PLUGIN_GATEHOUSE_DATABASE_URL: target.url })
  for (const args of [['credentials', 'create', '--label', 'Printed', '--scopes', 'products:read'], ['admin', 'token', 'create', '--label', 'Printed']]) {
    const { stdout } = await cli(...args)
    assert.match(stdout, /\ntoken: {5}gt[ha]_[A-Za-z0-9_-]+\n\(shown once: store it now; only its digest is kept\)\n$/, args.join(' '))
  }
})

test('credentials create, list --json, rotate, revoke and delete round trip', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
  const cli = cliFor(env)

  const created = JSON.parse((await cli('credentials', 'create', '--label', 'Catalog sync', '--scopes', 'products:read, variants:read',
    '--expires-in', '30d', '--ip', '10.0.0.0/8,192.0.2.7/32', '--json')).stdout)
  const { credential, token } = created
  assert.match(token, /^gth_[A-Za-z0-9_-]{43}$/)
  assert.equal(credential.label, 'Catalog sync')
  assert.deepEqual(credential.scopes, ['products:read', 'variants:read'])
  assert.deepEqual(credential.ipAllowlist, ['10.0.0.0/8', '192.0.2.7/32'])
  const days = (Date.parse(credential.expiresAt) - Date.now()) / 86_400_000
  assert.ok(days > 29.9 && days <= 30, `expires in ${days} days`)

  const listed = await cli('credentials', 'list', '--json')
  assert.ok(!listed.stdout.includes(token), 'the listing must not contain the token')
  const records = JSON.parse(listed.stdout)
  assert.equal(records.length, 1)
  assert.equal(records[0].id, credential.id)
  assert.equal(records[0].status, 'active')
  assert.equal(records[0].tokenHint, `${token.slice(0, 4)}…${token.slice(-4)}`)

  // The API's authentication (the same service the server uses) accepts the token from an allowed address.
  const database = target.open()
  const auth = new CredentialService(database, testSettings({ PLUGIN_GATEHOUSE_DATABASE_URL: target.url }), credentialOptions)
  // Hooks run in the order they were added: flush the service before its database closes.
  t.after(async () => {
    await auth.close()
    await database.close()
  })
  const rejects = async (tok: string, message: RegExp) => {
    await assert.rejects(new CredentialService(database, testSettings(), credentialOptions).authenticate(tok, '10.1.2.3'),
      (e: unknown) => e instanceof ApiError && e.code === 'UNAUTHORIZED' && message.test(e.message))
  }
  assert.equal((await auth.authenticate(token, '10.1.2.3')).credentialId, credential.id)

  const rotated = JSON.parse((await cli('credentials', 'rotate', credential.id, '--json')).stdout)
  assert.notEqual(rotated.token, token)
  await rejects(token, /Unknown token/)
  assert.equal((await new CredentialService(database, testSettings(), credentialOptions).authenticate(rotated.token, '10.1.2.3')).credentialId, credential.id)

  const revoked = await cli('credentials', 'revoke', credential.id)
  assert.equal(revoked.stdout, `${credential.id} is now revoked\n`)
  await rejects(rotated.token, /revoked/)
  const afterRevoke = JSON.parse((await cli('credentials', 'list', '--json')).stdout)
  assert.equal(afterRevoke[0].status, 'revoked')
  assert.ok(!JSON.stringify(afterRevoke).includes(rotated.token))

  await cli('credentials', 'delete', credential.id)
  const remaining = await database.db.selectFrom('credentials').select('id').execute()
  assert.deepEqual(remaining, [])
})

test('credentials errors: unknown scope, bad duration, unknown id', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
  const scope = await runCli(['credentials', 'create', '--label', 'x', '--scopes', 'products:read,bogus:read'], { env })
  assert.equal(scope.code, 1)
  assert.match(scope.stderr, /^gatehouse: invalid --scopes: unknown scope "bogus:read"; valid scopes: health:read, readiness:read, .*, plugins:\{plugin\}:\{resource\}:read\n$/)
  assert.equal(scope.stdout, '')

  const duration = await runCli(['credentials', 'create', '--label', 'x', '--scopes', 'products:read', '--expires-in', 'soon'], { env })
  assert.equal(duration.code, 1)
  assert.equal(duration.stderr, "gatehouse: option '--expires-in <duration>' argument 'soon' is invalid. expected a duration like 30d, 12h or 90m\n")
  // Zero would make a credential that is expired before its first use.
  const zero = await runCli(['credentials', 'create', '--label', 'x', '--scopes', 'products:read', '--expires-in', '0d'], { env })
  assert.equal(zero.code, 1)
  assert.equal(zero.stderr, "gatehouse: option '--expires-in <duration>' argument '0d' is invalid. must be more than zero, like 30d, 12h or 90m\n")
  // A scope of a family switched off by its flag is held, and the operator is told it waits for the flag.
  const flagged = await runCli(['credentials', 'create', '--label', 'people', '--scopes', 'users:read,products:read'], { env })
  assert.equal(flagged.code, 0, flagged.stderr)
  assert.equal(flagged.stderr, 'note: users:read needs PLUGIN_GATEHOUSE_ENABLE_USERS_API=true, which is off here; the credential holds it, and it takes effect once that is on\n')
  const far = await runCli(['credentials', 'create', '--label', 'x', '--scopes', 'products:read', '--expires-in', '99999999d'], { env })
  assert.equal(far.stderr, "gatehouse: option '--expires-in <duration>' argument '99999999d' is invalid. at most 36500d (100 years)\n")

  const unknown = await runCli(['credentials', 'pause', 'cred_nope'], { env })
  assert.equal(unknown.code, 1)
  assert.equal(unknown.stderr, 'gatehouse: No credential with id cred_nope\n')
})

test('credentials create --webhook-interests and credentials interests set and clear targeting', async (t) => {
  const target = await cliDatabase('sqlite')
  t.after(() => target.destroy())
  const env = { PLUGIN_GATEHOUSE_DATABASE_URL: target.url }
  const cli = async (...args: string[]) => JSON.parse((await cliFor(env)(...args)).stdout)
  const { credential } = await cli('credentials', 'create', '--label', 'Cache refresher', '--scopes', 'entries:read',
    '--webhook-interests', 'entry:created,entry:updated,product:*', '--json')
  assert.deepEqual(credential.webhookInterests, [
    { resourceType: 'entry', actions: ['created', 'updated'] },
    { resourceType: 'product', actions: ['created', 'updated', 'deleted'] },
  ])
  const changed = await cli('credentials', 'interests', credential.id, 'order:deleted', '--json')
  assert.deepEqual(changed.webhookInterests, [{ resourceType: 'order', actions: ['deleted'] }])
  const cleared = await cli('credentials', 'interests', credential.id, '', '--json')
  assert.deepEqual(cleared.webhookInterests, [])
  const bad = await runCli(['credentials', 'interests', credential.id, 'asset:created'], { env })
  assert.notEqual(bad.code, 0)
  // Event types come from the declarations: the error lists the families that emit webhooks.
  assert.match(bad.stderr, /unknown resourceType "asset"; valid: product, order, entry/)
  assert.match(bad.stderr, /^gatehouse: invalid <list>/, 'named as the argument typed, not the API field')
  // Every malformed item is named, not the first only.
  const malformed = await runCli(['credentials', 'interests', credential.id, 'entry:made,bogus,product:*,order:gone'], { env })
  assert.notEqual(malformed.code, 0)
  for (const item of ['"entry:made": action must be', '"bogus": expected TYPE:ACTION', '"order:gone": action must be']) assert.ok(malformed.stderr.includes(item), malformed.stderr)
})
