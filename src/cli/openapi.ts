// `gatehouse openapi [--output FILE]`: the OpenAPI 3.1 document of the machine API as this
// configuration serves it (flags, base URL), the same text GET /openapi.json answers. The
// document depends only on settings and the route registry, so the app is built on a
// throwaway in-memory store: the command needs no database and writes nothing to one.
import { writeFileSync } from 'node:fs'
import type { Command } from 'commander'
import { pino } from 'pino'
import { buildApp } from '../app.js'
import { openapiDocument } from '../contract/openapi.js'
import { loadCliSettings } from './context.js'

export function registerOpenapiCommand(program: Command): void {
  program.command('openapi')
    .description('print the OpenAPI 3.1 document of the machine API, as configured (flags, base URL)')
    .option('-o, --output <file>', 'write the document to a file instead of standard output')
    .option('--compact', 'print one line instead of indented JSON')
    .action(async (opts: { output?: string; compact?: boolean }) => {
      const configured = loadCliSettings()
      const settings = { ...configured, databaseUrl: 'sqlite::memory:', redisUrl: undefined }
      const built = await buildApp({ settings, logger: pino({ level: 'silent' }), webhookWorker: false })
      try {
        const { doc } = openapiDocument(built.routes, built.services.settings)
        const text = (opts.compact ? JSON.stringify(doc) : JSON.stringify(doc, null, 2)) + '\n'
        if (opts.output) {
          writeFileSync(opts.output, text)
          process.stderr.write(`wrote ${opts.output} (${Object.keys(doc.paths as object).length} paths)\n`)
        } else {
          process.stdout.write(text)
        }
      } finally {
        await built.close()
      }
    })
}
