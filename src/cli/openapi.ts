// `gatehouse openapi [--output FILE]`: the OpenAPI 3.1 document of the machine API as this
// configuration serves it (flags, base URL), the same text GET /openapi.json answers, built
// without a database (see contract-app.ts).
import { writeFileSync } from 'node:fs'
import type { Command } from 'commander'
import { CliError } from './cli-error.js'
import { openapiDocument } from '../contract/openapi.js'
import { withContractApp } from './contract-app.js'

export function registerOpenapiCommand(program: Command): void {
  program.command('openapi')
    .description('print the OpenAPI 3.1 document of the machine API, as configured (flags, base URL)')
    .option('-o, --output <file>', 'write the document to a file instead of standard output')
    .option('--compact', 'print one line instead of indented JSON')
    .action((opts: { output?: string; compact?: boolean }) => withContractApp((built) => {
      const { doc } = openapiDocument(built.routes, built.services.settings)
      const text = (opts.compact ? JSON.stringify(doc) : JSON.stringify(doc, null, 2)) + '\n'
      if (opts.output) {
        try {
          writeFileSync(opts.output, text)
        } catch (err) {
          const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'its folder does not exist' : (err as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : (err as Error).message
          throw new CliError(`invalid --output: cannot write ${opts.output}: ${why}`)
        }
        process.stderr.write(`wrote ${opts.output} (${Object.keys(doc.paths as object).length} paths)\n`)
      } else {
        process.stdout.write(text)
      }
    }))
}
