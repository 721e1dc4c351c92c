// `gatehouse scopes [--json]`: the scope catalogue, every scope a credential can be given, with
// its group and meaning, and whether this configuration advertises it in /capabilities (a
// scope whose surface is behind a flag that is off, or not built yet, is not advertised).
import type { Command } from 'commander'
import { featureFlags, offeredScopes } from '../contract/capabilities.js'
import { withContractApp } from './contract-app.js'
import { printJson, printTable } from './output.js'

export function registerScopes(program: Command): void {
  program.command('scopes')
    .description('list the scopes a credential can be given, with their group and what they allow')
    .option('--json', 'print as JSON')
    .action((opts: { json?: boolean }) => withContractApp(({ routes, services }) => {
      const providerScopes = services.providers.scopes()
      const offered = new Set(offeredScopes(services.scopes, routes, services.settings, providerScopes).map((s) => s.scope))
      const scopes = [...services.scopes.entries, ...providerScopes].map((s) => ({
        scope: s.scope,
        group: s.group,
        description: s.description,
        advertised: offered.has(s.scope),
        flag: s.flag ? featureFlags[s.flag].setting : null,
        deprecatedFor: s.deprecatedFor ?? null,
      }))
      if (opts.json) return printJson(scopes)
      const note = (s: typeof scopes[number]) => s.deprecatedFor ? `deprecated alias of ${s.deprecatedFor}`
        : s.flag ? `needs ${s.flag}=true (${s.advertised ? 'on' : 'off'})`
          : s.advertised ? '' : 'not advertised: no endpoint uses it yet'
      printTable(['SCOPE', 'GROUP', 'ALLOWS', 'NOTE'], scopes.map((s) => [s.scope, s.group, s.description, note(s)]))
      process.stdout.write('Provider resources add plugins:{plugin}:{resource}:read while their provider is loaded.\n')
    }))
}
