// `gatehouse scopes [--json]`: the scope catalogue, what a credential can be given, with the
// group and meaning of each and whether this configuration advertises it (flag-gated
// surfaces), so an operator can pick scopes without reading the docs.
import type { Command } from 'commander'
import { scopeCatalog, scopeEnabled } from '../auth/scopes.js'
import { featureFlags } from '../contract/capabilities.js'
import { loadCliSettings } from './context.js'
import { printJson, printTable } from './output.js'

export function registerScopes(program: Command): void {
  program.command('scopes')
    .description('list the scopes a credential can be given, with their group and what they allow')
    .option('--json', 'print as JSON')
    .action((opts: { json?: boolean }) => {
      const settings = loadCliSettings()
      const scopes = scopeCatalog.map((s) => ({
        scope: s.scope,
        group: s.group,
        description: s.description,
        advertised: scopeEnabled(s, settings),
        flag: s.flag ? featureFlags[s.flag].setting : null,
        deprecatedFor: s.deprecatedFor ?? null,
      }))
      if (opts.json) return printJson(scopes)
      printTable(['SCOPE', 'GROUP', 'ALLOWS', 'NOTE'], scopes.map((s) => [
        s.scope, s.group, s.description,
        s.deprecatedFor ? `deprecated alias of ${s.deprecatedFor}` : s.flag ? `needs ${s.flag}=true (${s.advertised ? 'on' : 'off'})` : '',
      ]))
      process.stdout.write('Provider resources add plugins:{plugin}:{resource}:read while their provider is loaded.\n')
    })
}
