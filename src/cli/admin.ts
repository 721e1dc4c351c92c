// `gatehouse admin …`: control-panel admin accounts (scrypt hashes in the `admins` table).
import type { Command } from 'commander'
import { createAdmin, listAdmins, setAdminPassword } from '../auth/admin-accounts.js'
import { openStore } from './context.js'
import { readNewPassword } from './password-input.js'
import { printJson, printTable } from './output.js'

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
        await setAdminPassword(store.database.db, opts.username, password)
        process.stdout.write(`Password of ${opts.username} changed\n`)
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
}
