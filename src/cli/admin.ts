// `gatehouse admin …`: control-panel admin accounts (scrypt hashes in the `admins` table), their
// panel sessions (`admin sessions list|end`), and admin API tokens (`admin token …`: SHA-256
// digests in `admin_tokens`, printed once).
import type { Command } from 'commander'
import { createAdmin, listAdmins } from '../auth/admin-accounts.js'
import { changeAdminPassword } from '../operations/admin-password.js'
import { deleteAdmin, endAdminSessions, listAdminSessions } from '../operations/admin-accounts.js'
import { ApiError } from '../kernel/errors.js'
import type { Database } from '../store/database.js'
import { CliError } from './cli-error.js'
import type { AdminTokenRecord } from '../auth/admin-tokens.js'
import { openStore, withServices } from './context.js'
import { operator } from './operator.js'
import { readNewPassword } from './password-input.js'
import { printJson, printNewToken, printTable } from './output.js'

export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('control-panel admin accounts')

  admin.command('create')
    .description('create an admin; the password is prompted for, or read from stdin')
    .requiredOption('--username <name>', 'login name')
    .option('--password-stdin', 'read the password from stdin instead of prompting')
    .option('--json', 'print the new account as JSON')
    .action(async (opts: { username: string; passwordStdin?: boolean; json?: boolean }) => {
      const password = await readNewPassword(opts.passwordStdin === true)
      const store = await openStore()
      try {
        const account = await createAdmin(store.database.db, opts.username, password)
        if (opts.json) printJson(account)
        else process.stdout.write(`Created admin ${account.username}\n`)
      } finally {
        await store.close()
      }
    })

  admin.command('set-password')
    .description('set a new password for an admin')
    .requiredOption('--username <name>', 'login name')
    .option('--password-stdin', 'read the password from stdin instead of prompting')
    .action(async (opts: { username: string; passwordStdin?: boolean }) => {
      const password = await readNewPassword(opts.passwordStdin === true)
      const store = await openStore()
      try {
        const { sessionsEnded } = await changeAdminPassword(store.database.db, opts.username, password, operator())
        process.stdout.write(`Password of ${opts.username} changed; ${sessionsEnded} panel session${sessionsEnded === 1 ? '' : 's'} ended\n`)
      } finally {
        await store.close()
      }
    })

  admin.command('list')
    .description('list admins')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }) => {
      const store = await openStore()
      try {
        const admins = await listAdmins(store.database.db)
        if (opts.json) printJson(admins)
        else printTable(['USERNAME', 'CREATED'], admins.map((a) => [a.username, a.createdAt]))
      } finally {
        await store.close()
      }
    })

  admin.command('delete')
    .description('delete an admin and end its panel sessions; the last admin cannot be deleted')
    .requiredOption('--username <name>', 'login name')
    .option('--json', 'print the result as JSON')
    .action((opts: { username: string; json?: boolean }) => withStore(async (database) => {
      const done = await deleteAdmin(database, opts.username, operator()).catch(byFlag({ username: '--username' }))
      if (opts.json) return printJson(done)
      process.stdout.write(`Deleted admin ${done.username}; ${plural(done.sessionsEnded, 'panel session')} ended\n`)
    }))

  registerAdminSessions(admin)
  registerAdminTokens(admin)
}

function registerAdminSessions(admin: Command): void {
  const sessions = admin.command('sessions').description('control-panel sessions: list the live ones, end one or all of an admin\'s')

  sessions.command('list')
    .description('list live panel sessions (never the cookie: each has a ses_… id)')
    .option('--username <name>', 'only this admin\'s sessions')
    .option('--json', 'print as JSON')
    .action((opts: { username?: string; json?: boolean }) => withStore(async (database) => {
      const all = await listAdminSessions(database.db, { username: opts.username }).catch(byFlag({ username: '--username' }))
      if (opts.json) return printJson(all)
      printTable(['ID', 'USERNAME', 'STARTED', 'LAST SEEN', 'EXPIRES'], all.map((s) => [s.id, s.username, s.createdAt, s.lastSeenAt, s.expiresAt]))
    }))

  sessions.command('end')
    .description('end one session (--id) or every session of an admin (--username); their cookies stop working at once')
    .option('--id <id>', 'the session to end (ses_…, from sessions list)')
    .option('--username <name>', 'end every session of this admin')
    .option('--json', 'print the ended sessions as JSON')
    .action((opts: { id?: string; username?: string; json?: boolean }) => withStore(async (database) => {
      if (opts.id !== undefined && opts.username !== undefined) throw new CliError('give --id or --username, not both')
      if (opts.id === undefined && opts.username === undefined) throw new CliError('give --id ses_… (one session) or --username NAME (all of that admin\'s sessions)')
      const target = opts.id !== undefined ? { id: opts.id } : { username: opts.username as string }
      const { ended } = await endAdminSessions(database.db, target, operator()).catch(byFlag({ id: '--id', username: '--username' }))
      if (opts.json) return printJson({ ended })
      const whose = opts.username ?? ended[0]?.username
      process.stdout.write(`Ended ${plural(ended.length, 'panel session')}${whose ? ` of ${whose}` : ''}\n`)
    }))
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** The store for one command, closed afterwards. */
async function withStore(fn: (database: Database) => Promise<void>): Promise<void> {
  const store = await openStore()
  try {
    await fn(store.database)
  } finally {
    await store.close()
  }
}

/**
 * Names the option the user typed in a refusal: the operations name their fields (`id`,
 * `username`) or say "No admin named x"; the CLI says `--username: no admin named x`.
 */
function byFlag(flags: Readonly<Record<string, string>>) {
  return (err: unknown): never => {
    if (!(err instanceof ApiError)) throw err
    const param = err.details?.[0]?.param
    if (param !== undefined && flags[param]) throw new CliError(`invalid ${flags[param]}: ${err.details?.[0]?.problem}`)
    if (err.code === 'NOT_FOUND' || err.code === 'CONFLICT') {
      const flag = /session/i.test(err.message) && flags.id ? flags.id : flags.username
      if (flag) throw new CliError(`${flag}: ${err.message.replace(/^No /, 'no ')}`)
    }
    throw err
  }
}

function registerAdminTokens(admin: Command): void {
  const tokens = admin.command('token').description('admin API tokens: create (printed once), list, revoke')

  tokens.command('create')
    .description('create an admin API token; it is printed once')
    .requiredOption('--label <label>', 'what or who the token is for')
    .option('--json', 'print the token record and the token as JSON')
    .action((opts: { label: string; json?: boolean }) => withServices(async ({ services }) => {
      const { adminToken, token } = await services.adminTokens.create(opts.label, operator())
      if (opts.json) return printJson({ adminToken, token })
      printAdminToken(adminToken)
      printNewToken(token)
    }))

  tokens.command('list')
    .description('list admin API tokens; never shows the tokens themselves')
    .option('--json', 'print as JSON')
    .action((opts: { json?: boolean }) => withServices(async ({ services }) => {
      const all = await services.adminTokens.list()
      if (opts.json) return printJson(all)
      printTable(['ID', 'LABEL', 'STATUS', 'CREATED', 'BY', 'LAST USED', 'TOKEN'], all.map((t) => [
        t.id, t.label, t.status, t.createdAt, t.createdBy, t.lastUsedAt ?? 'never', t.tokenHint,
      ]))
      if (services.settings.adminToken) process.stdout.write('PLUGIN_GATEHOUSE_ADMIN_TOKEN is also set and opens the admin API.\n')
    }))

  tokens.command('revoke')
    .description('revoke an admin API token for good; it stops working at once')
    .argument('<id>', 'admin token id (adm_…)')
    .option('--json', 'print the token record as JSON')
    .action((id: string, opts: { json?: boolean }) => withServices(async ({ services }) => {
      const revoked = await services.adminTokens.revoke(id, operator())
      if (opts.json) return printJson(revoked)
      process.stdout.write(`${revoked.id} is now ${revoked.status}\n`)
    }))
}

function printAdminToken(t: AdminTokenRecord): void {
  const rows: [string, string][] = [['id', t.id], ['label', t.label], ['status', t.status], ['created', t.createdAt], ['hint', t.tokenHint]]
  for (const [k, v] of rows) process.stdout.write(`${(k + ':').padEnd(11)}${v}\n`)
}
