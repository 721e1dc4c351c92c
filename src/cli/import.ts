// `gatehouse import FILE`: NDJSON records through the write service, batched, with progress,
// and a summary naming every rejected line. Exit status 0 when every line was imported, 2
// when some were rejected (the rest are kept), 1 when the import could not run at all.
import { createReadStream, statSync } from 'node:fs'
import type { Command } from 'commander'
import { importNdjson } from '../loaders/ndjson-import.js'
import { CliError } from './cli-error.js'
import { wholeNumber } from './arguments.js'
import { withServices } from './context.js'
import { createProgress } from './progress.js'
import { formatCount, formatSeconds, printJson } from './output.js'

const SHOWN_REJECTIONS = 20

export function registerImport(program: Command): void {
  program.command('import')
    .description('import NDJSON records, one {"type":…,"record":{…}} per line (see docs/getting-started.md)')
    .argument('<file>', 'NDJSON file, or - for stdin')
    .option('--batch-size <n>', 'lines per transaction', wholeNumber(1, 50_000), 1000)
    .option('--json', 'print the summary as JSON')
    .action(async (file: string, opts: { batchSize: number; json?: boolean }) => {
      const total = file === '-' ? 0 : await countLines(checkedFile(file))
      const input = file === '-' ? process.stdin : createReadStream(file)
      const source = file === '-' ? 'stdin' : file
      await withServices(async ({ services }) => {
        const started = Date.now()
        const progress = createProgress(`Importing ${source}`, { total, unit: 'lines' })
        const summary = await importNdjson(services.store, input, {
          batchSize: opts.batchSize,
          onProgress: ({ lines }) => progress.update(lines),
        })
        progress.finish(`${formatCount(summary.imported)} imported, ${formatCount(summary.rejected)} rejected`)
        const seconds = (Date.now() - started) / 1000
        if (opts.json) printJson({ file, ...summary, seconds })
        else {
          process.stdout.write(`Imported ${formatCount(summary.imported)} of ${formatCount(summary.lines - summary.blank)} records from ${source} in ${formatSeconds(seconds * 1000)}\n`)
          for (const [type, n] of Object.entries(summary.byType)) process.stdout.write(`  ${type}: ${formatCount(n)}\n`)
          if (summary.rejected > 0) {
            process.stdout.write(`Rejected ${formatCount(summary.rejected)} line(s):\n`)
            for (const r of summary.rejections.slice(0, SHOWN_REJECTIONS)) {
              process.stdout.write(`  line ${r.line}${r.type ? ` (${r.type})` : ''}: ${r.reason}\n`)
            }
            if (summary.rejected > SHOWN_REJECTIONS) process.stdout.write(`  … and ${formatCount(summary.rejected - SHOWN_REJECTIONS)} more (--json lists them)\n`)
          }
        }
        if (summary.rejected > 0) process.exitCode = 2
      })
    })
}

/** The file, when it is a readable regular file; otherwise a one-line reason. */
function checkedFile(file: string): string {
  try {
    if (!statSync(file).isFile()) throw new CliError(`${file} is not a file`)
    return file
  } catch (err) {
    if (err instanceof CliError) throw err
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`)
  }
}

/**
 * Lines in the file, counted before the import so progress shows an exact total (one pass
 * over the bytes; an import reads them again anyway). A last line without a newline counts.
 */
async function countLines(file: string): Promise<number> {
  let lines = 0
  let last = 0x0a
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++
    if (chunk.length > 0) last = chunk[chunk.length - 1]
  }
  return last === 0x0a ? lines : lines + 1
}
