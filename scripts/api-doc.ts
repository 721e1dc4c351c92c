// Renders the endpoint, scope and error reference of docs/api.md from the route registry,
// the scope catalogue and the error catalogue, so the docs cannot drift from the code.
// `npx tsx scripts/api-doc.ts` rewrites the generated part of docs/api.md in place;
// test/api/api-doc.test.ts fails when it is out of date.
import { readFileSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import type { TSchema } from '@sinclair/typebox'
import { pino } from 'pino'
import { successorPath, type MachineRoute } from '../src/kernel/machine-route.js'
import { buildApp } from '../src/compose/app.js'
import { loadSettings } from '../src/kernel/settings.js'
import type { ScopeInfo } from '../src/auth/scopes.js'
import { offeredScopes } from '../src/contract/capabilities.js'
import { errorCatalog } from '../src/kernel/errors.js'

export const START = '<!-- generated:reference:start -->'
export const END = '<!-- generated:reference:end -->'

function describeSchema(s: TSchema): string {
  if (s.anyOf) {
    const literals = (s.anyOf as TSchema[]).map((x) => x.const).filter((x) => x !== undefined)
    if (literals.length === (s.anyOf as TSchema[]).length) return literals.map((l) => `\`${String(l)}\``).join(', ')
    return (s.anyOf as TSchema[]).map(describeSchema).join(' or ')
  }
  if (Array.isArray(s.enum)) return [(s.enum as unknown[]).map((l) => `\`${String(l)}\``).join(', '), ...(s.default !== undefined ? [`default ${String(s.default)}`] : [])].join('; ')
  const bits: string[] = [String(s.type ?? 'any')]
  if (s.format) bits.push(s.format as string)
  if (s.minimum !== undefined || s.maximum !== undefined) bits.push(`${s.minimum ?? ''}..${s.maximum ?? ''}`)
  if (s.default !== undefined) bits.push(`default ${typeof s.default === 'object' ? JSON.stringify(s.default) : String(s.default)}`)
  return bits.join(', ')
}

function parameters(route: MachineRoute): string {
  const props = (route.querystring?.properties ?? {}) as Record<string, TSchema>
  const body = (route.body?.properties ?? {}) as Record<string, TSchema>
  const required = new Set<string>([...((route.querystring?.required as string[]) ?? []), ...((route.body?.required as string[]) ?? [])])
  const rows = [
    ...Object.entries(props).map(([k, s]) => `\`${k}\`${required.has(k) ? ' (required)' : ''}: ${describeSchema(s)}`),
    ...Object.entries(body).map(([k, s]) => `body \`${k}\`${required.has(k) ? ' (required)' : ''}: ${describeSchema(s)}`),
    ...Object.entries((route.headers?.properties ?? {}) as Record<string, TSchema>).map(([k, s]) =>
      `header \`${k}\`${(route.headers?.required ?? []).includes(k) ? ' (required)' : ''}: ${describeSchema(s)}${s.pattern ? `, \`${s.pattern as string}\`` : ''}`),
  ]
  return rows.length > 0 ? rows.join('<br>') : '–'
}

export function renderReference({ routes, scopes }: Reference): string {
  const out: string[] = [START, '', '## Endpoint reference', '',
    'Generated from the route registry (`npx tsx scripts/api-doc.ts`). Paths are relative to `/gatehouse/v1`.', '',
    '| method | path | key | scope | also uses | parameters |', '|---|---|---|---|---|---|']
  for (const r of routes) {
    const flag = r.flag ? ` (only with \`${r.flag}\`)` : ''
    const dep = r.deprecated ? ` — deprecated, use \`${successorPath(r) ?? ''}\`` : ''
    out.push(`| ${r.method} | \`${r.path}\`${flag}${dep} | \`${r.key}\` | \`${r.scope}\` | ${(r.optionalScopes ?? []).map((s) => `\`${s}\``).join(', ') || '–'} | ${parameters(r)} |`)
  }
  out.push('', '## Scopes', '', '| scope | group | what it allows |', '|---|---|---|')
  for (const s of scopes) {
    const note = s.flag ? ` (advertised only with \`${s.flag}\`)` : s.deprecatedFor ? ` (deprecated alias of \`${s.deprecatedFor}\`)` : ''
    out.push(`| \`${s.scope}\` | ${s.group} | ${s.description}${note} |`)
  }
  out.push('| `plugins:{plugin}:{resource}:read` | providers | One resource of a registered external provider |')
  out.push('', '## Error codes', '', '| HTTP | code | when |', '|---|---|---|')
  for (const [code, e] of Object.entries(errorCatalog)) out.push(`| ${e.status} | \`${code}\` | ${e.title} |`)
  out.push('', END)
  return out.join('\n')
}

export interface Reference {
  readonly routes: readonly MachineRoute[]
  /** Scopes offered with every flag on. */
  readonly scopes: readonly ScopeInfo[]
}

/** The full registry and the scopes it offers with every flag on, from an in-memory app. */
export async function allRoutes(): Promise<Reference> {
  const settings = loadSettings({
    PLUGIN_GATEHOUSE_DATABASE_URL: 'sqlite::memory:',
    PLUGIN_GATEHOUSE_ENABLE_USERS_API: 'true',
    PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API: 'true',
    PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL: 'true',
    PLUGIN_GATEHOUSE_LOG_LEVEL: 'silent',
  })
  const built = await buildApp({ settings, logger: pino({ level: 'silent' }) })
  const routes = built.routes
  const scopes = offeredScopes(built.services.scopes, routes, settings).filter((s) => !s.scope.startsWith('plugins:'))
  await built.close()
  return { routes, scopes }
}

export function spliceReference(doc: string, reference: string): string {
  const start = doc.indexOf(START)
  const end = doc.indexOf(END)
  if (start < 0 || end < 0) return `${doc.trimEnd()}\n\n${reference}\n`
  return doc.slice(0, start) + reference + doc.slice(end + END.length)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = 'docs/api.md'
  writeFileSync(file, spliceReference(readFileSync(file, 'utf8'), renderReference(await allRoutes())))
  console.log(`updated ${file}`)
}
