// `gatehouse credentials …`: managed machine credentials. Tokens are printed once, at
// create and rotate; listings show only the non-secret hint.
import type { Command } from 'commander'
import { expiryFromDuration, type CredentialRecord } from '../auth/credentials.js'
import { operator } from './operator.js'
import { withServices } from './context.js'
import { cidrList, commaList, duration, webhookInterests } from './arguments.js'
import { printJson, printNewToken, printTable } from './output.js'
import { asArguments } from './cli-error.js'
import { featureFlags } from '../contract/capabilities.js'

interface CreateOptions {
  readonly label: string
  readonly scopes: string[]
  readonly expiresIn?: string
  readonly ip?: string[]
  readonly webhookInterests?: ReturnType<typeof webhookInterests>
  readonly json?: boolean
}

export function registerCredentials(program: Command): void {
  const credentials = program.command('credentials').description('machine credentials: create, list and manage their lifecycle')

  credentials.command('create')
    .description('create a credential; its token is printed once')
    .requiredOption('--label <label>', 'what the credential is for')
    .requiredOption('--scopes <list>', 'comma-separated scopes, e.g. products:read,entries:read (gatehouse scopes lists them)', commaList)
    .option('--expires-in <duration>', 'expire after a duration like 30d, 12h or 90m', duration)
    .option('--ip <list>', 'comma-separated CIDR allowlist, e.g. 10.0.0.0/8,203.0.113.7/32', cidrList)
    .option('--webhook-interests <list>', 'webhook events this integration wants, e.g. entry:created,product:*,order:deleted', webhookInterests)
    .option('--json', 'print the credential and token as JSON')
    .action((opts: CreateOptions) => withServices(async ({ services }) => {
      const { credential, token } = await services.credentials.create({
        label: opts.label,
        scopes: opts.scopes,
        expiresAt: opts.expiresIn ? expiryFromDuration(opts.expiresIn) : null,
        ipAllowlist: opts.ip ?? [],
        webhookInterests: opts.webhookInterests ?? [],
      }, operator())
      // Held, and in force once the flag is on; said now so the first 404 is no surprise.
      for (const e of services.scopes.entries) {
        if (e.flag !== undefined && !services.settings[e.flag] && credential.scopes.includes(e.scope)) {
          process.stderr.write(`note: ${e.scope} needs ${featureFlags[e.flag].setting}=true, which is off here; the credential holds it, and it takes effect once that is on\n`)
        }
      }
      if (opts.json) return printJson({ credential, token })
      printRecord(credential)
      printNewToken(token)
    }))

  credentials.command('list')
    .description('list credentials (managed, configured and the legacy token); never shows tokens')
    .option('--json', 'print as JSON')
    .action((opts: { json?: boolean }) => withServices(async ({ services }) => {
      const all = await services.credentials.list()
      if (opts.json) return printJson(all)
      printTable(['ID', 'LABEL', 'SOURCE', 'STATUS', 'SCOPES', 'EXPIRES', 'LAST USED', 'TOKEN'], all.map((c) => [
        c.id, c.label, c.source, c.status, String(c.scopes.length), c.expiresAt ?? '-', c.lastUsedAt ?? 'never', c.tokenHint,
      ]))
    }))

  credentials.command('show')
    .description('show one credential')
    .argument('<id>', 'credential id')
    .option('--json', 'print as JSON')
    .action((id: string, opts: { json?: boolean }) => withServices(async ({ services }) => {
      const c = await services.credentials.get(id)
      if (opts.json) return printJson(c)
      printRecord(c)
    }))

  credentials.command('rotate')
    .description('replace the token; the old one stops working at once and the new one is printed once')
    .argument('<id>', 'credential id')
    .option('--json', 'print the credential and token as JSON')
    .action((id: string, opts: { json?: boolean }) => withServices(async ({ services }) => {
      const { credential, token } = await services.credentials.rotate(id, operator())
      if (opts.json) return printJson({ credential, token })
      process.stdout.write(`Rotated ${credential.id}\ntoken:     ${token}\n(shown once: store it now)\n`)
    }))

  const lifecycle = [
    ['revoke', 'revoked', 'revoke for good (cannot be resumed)'],
    ['pause', 'paused', 'stop accepting the token until resumed'],
    ['resume', 'active', 'accept a paused credential again'],
  ] as const
  for (const [name, status, description] of lifecycle) {
    credentials.command(name)
      .description(description)
      .argument('<id>', 'credential id')
      .option('--json', 'print the credential as JSON')
      .action((id: string, opts: { json?: boolean }) => withServices(async ({ services }) => {
        const c = await services.credentials.setStatus(id, status, operator())
        if (opts.json) return printJson(c)
        process.stdout.write(`${c.id} is now ${c.status}\n`)
      }))
  }

  credentials.command('interests')
    .description('set the webhook events a credential wants (targeted delivery); an empty list clears them')
    .argument('<id>', 'credential id')
    .argument('<list>', 'e.g. entry:created,product:*,order:deleted, or "" to clear', webhookInterests)
    .option('--json', 'print the credential as JSON')
    .action((id: string, interests: ReturnType<typeof webhookInterests>, opts: { json?: boolean }) => withServices(async ({ services }) => {
      const c = await services.credentials.update(id, { webhookInterests: interests }, operator()).catch((err: unknown) => { throw asArguments(err, { webhookInterests: '<list>' }) })
      if (opts.json) return printJson(c)
      printRecord(c)
    }))

  credentials.command('delete')
    .description('delete a credential and its record')
    .argument('<id>', 'credential id')
    .option('--json', 'print the result as JSON')
    .action((id: string, opts: { json?: boolean }) => withServices(async ({ services }) => {
      await services.credentials.delete(id, operator())
      if (opts.json) return printJson({ deleted: id })
      process.stdout.write(`Deleted ${id}\n`)
    }))
}

function printRecord(c: CredentialRecord): void {
  const rows: [string, string][] = [
    ['id', c.id], ['label', c.label], ['source', c.source], ['status', c.status], ['scopes', c.scopes.join(', ')],
    ['expires', c.expiresAt ?? 'never'], ['ip allow', c.ipAllowlist.length > 0 ? c.ipAllowlist.join(', ') : 'any'],
    ['webhooks', c.webhookInterests.length > 0 ? c.webhookInterests.map((w) => `${w.resourceType}:${w.actions.join('+')}`).join(', ') : 'none (firehose unless others set interests)'],
    ['created', c.createdAt ?? '-'], ['last used', c.lastUsedAt ?? 'never'], ['hint', c.tokenHint],
  ]
  for (const [k, v] of rows) process.stdout.write(`${(k + ':').padEnd(11)}${v}\n`)
}
