// `gatehouse audit verify [--json]` walks the control plane's hash-chained audit log and
// reports the first broken link (an edited record, a deleted one, or deleted newest
// records), exiting 1 when the chain does not hold. `gatehouse audit list` prints records.
import type { Command } from 'commander'
import { openStore } from './context.js'
import { wholeNumber } from './arguments.js'
import { printJson, printTable } from './output.js'
import { listAudit, verifyAudit } from '../control/audit-log.js'

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description("the control plane's tamper-evident audit log: verify the hash chain, list records")

  audit.command('verify')
    .description('walk the hash chain and report the first broken link; exits 1 when it is broken')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }) => {
      const store = await openStore()
      try {
        const result = await verifyAudit(store.database.db)
        if (opts.json) printJson(result)
        else if (result.brokenAt) {
          process.stdout.write(`Audit chain BROKEN at record ${result.brokenAt.id}: ${result.brokenAt.problem}\n`)
          process.stdout.write(`${result.checked} record(s) before it verified; the head says ${result.headSeq} were written.\n`)
        } else {
          process.stdout.write(`Audit chain intact: ${result.checked} record(s) verified, head at ${result.headSeq}.\n`)
        }
        if (!result.ok) process.exitCode = 1
      } finally {
        await store.close()
      }
    })

  audit.command('list')
    .description('list audit records in append order')
    .option('--after <id>', 'only records after this id', wholeNumber(0, Number.MAX_SAFE_INTEGER), 0)
    .option('--limit <n>', 'how many records, 1..1000', wholeNumber(1, 1000), 50)
    .option('--json', 'print as JSON')
    .action(async (opts: { after: number; limit: number; json?: boolean }) => {
      const store = await openStore()
      try {
        const { items } = await listAudit(store.database.db, { afterId: opts.after, limit: opts.limit })
        if (opts.json) return printJson(items)
        printTable(['ID', 'AT', 'CATEGORY', 'ACTION', 'OUTCOME', 'ACTOR', 'SUMMARY'],
          items.map((r) => [String(r.id), r.at, r.category, r.action, r.outcome, `${r.actor.type}:${r.actor.id}`, r.summary]))
      } finally {
        await store.close()
      }
    })
}
