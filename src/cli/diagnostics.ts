// `gatehouse diagnostics [--json]`: the same redacted bundle as GET /diagnostics/bundle,
// computed from the configured database without a running server. Incidents are evaluated
// from the signals every server process has written, so the CLI sees what they see.
// Exits 1 when the bundle's status is `error`.
import type { Command } from 'commander'
import { withServices } from './context.js'
import { printJson, printTable } from './output.js'
import { Operations } from '../ops/operations.js'
import { diagnosticsBundle, type DiagnosticsBundle } from '../operations/diagnostics.js'

function printBundle(b: DiagnosticsBundle): void {
  const { summary } = b
  process.stdout.write(`Gatehouse ${b.version} diagnostics at ${b.generatedAt}: ${summary.status} (${summary.warningCount} warning(s), ${summary.errorCount} error(s))\n\n`)
  const rows: string[][] = []
  for (const [name, check] of Object.entries(b.checks)) {
    if (check.problems.length === 0) rows.push([name, check.status, ''])
    check.problems.forEach((p, i) => rows.push(i === 0 ? [name, check.status, p] : ['', '', p]))
  }
  printTable(['CHECK', 'STATUS', 'PROBLEMS'], rows)
  process.stdout.write('\nUse --json for the full bundle (posture, credential counts, queue state).\n')
}

export function registerDiagnosticsCommand(program: Command): void {
  program.command('diagnostics')
    .description('print the redacted diagnostics bundle: summary, checks (auth, readiness, smoke, webhooks, storage) and posture')
    .option('--json', 'print the bundle as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withServices(async ({ services }) => {
        // As `serve` does: a provider that cannot load stops here, naming the setting.
        await services.providers.load()
        const ops = new Operations(services)
        try {
          const bundle = await diagnosticsBundle(services, ops.monitor)
          if (opts.json) printJson(bundle)
          else printBundle(bundle)
          if (bundle.summary.status === 'error') process.exitCode = 1
        } finally {
          await ops.close()
          await services.providers.close()
        }
      })
    })
}
