// Finds the provider an entry of PLUGIN_GATEHOUSE_PROVIDERS names: a built-in name, a module
// path (relative to the working directory) or a package name. Anything that cannot be found
// or is not a provider stops start-up with a message naming the setting and the entry.
import { existsSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { SettingsError, type Settings } from '../kernel/settings.js'
import { providerProblems } from './check-provider.js'
import type { Provider } from './provider.js'
import { builtinProviders } from './builtin-providers.js'

export const PROVIDERS_SETTING = 'PLUGIN_GATEHOUSE_PROVIDERS'

export type ProviderSource = 'built-in' | 'module' | 'package'

export interface FoundProvider {
  /** The entry as the setting gives it. */
  readonly entry: string
  readonly source: ProviderSource
  readonly provider: Provider
}

const fail = (problem: string) => new SettingsError(PROVIDERS_SETTING, problem)
/** The first line of an error's message: what start-up messages quote (no stack, no detail). */
export const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]

/** Module paths start with `.` or `/` or end in a script extension; anything else names a package. */
const isPath = (entry: string) => entry.startsWith('.') || isAbsolute(entry) || /\.(?:[cm]?js|[cm]?ts)$/.test(entry)
const isTypeScript = (file: string) => /\.[cm]?ts$/.test(file)

/**
 * A provider module by path. TypeScript goes through tsx (a dependency) on every Node:
 * the built CLI (`npm start`) runs plain JavaScript, Node 20 cannot import `.ts` at all, and
 * a Node that strips types neither maps `./x.js` imports to `./x.ts` nor compiles enums.
 * One scope of tsx's hooks for the process, registered on first use (start-up without a
 * TypeScript provider does not pay for it).
 */
let typeScript: Promise<(url: string) => Promise<Record<string, unknown>>> | undefined
async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href
  if (!isTypeScript(file)) return import(url)
  typeScript ??= import('tsx/esm/api').then(({ register }) => {
    const scope = register({ namespace: 'gatehouse-providers' })
    return (specifier: string) => scope.import(specifier, import.meta.url) as Promise<Record<string, unknown>>
  })
  return (await typeScript)(url)
}

/**
 * What a load failure says: its first line, or for TypeScript that does not compile (tsx's
 * "Transform failed with 1 error:") the line after it, which names the place and the problem.
 */
function loadProblem(err: unknown): string {
  const lines = (err instanceof Error ? err.message : String(err)).split('\n')
  return /^Transform failed with \d+ errors?:$/.test(lines[0]) && lines[1] ? lines[1] : lines[0]
}

export async function findProvider(entry: string, settings: Settings, cwd = process.cwd()): Promise<FoundProvider> {
  // Own keys only: an entry like "constructor" is a package name, not Object's constructor.
  const builtin = Object.hasOwn(builtinProviders, entry) ? builtinProviders[entry] : undefined
  const source: ProviderSource = builtin ? 'built-in' : isPath(entry) ? 'module' : 'package'
  let namespace: Record<string, unknown>
  if (builtin) {
    namespace = { default: builtin(settings) }
  } else if (source === 'module') {
    const file = resolve(cwd, entry)
    if (!existsSync(file)) throw fail(`module "${entry}" cannot be found (looked for ${file})`)
    try {
      namespace = await importModule(file)
    } catch (err) {
      throw fail(`module "${entry}" failed to load: ${loadProblem(err)}`)
    }
  } else {
    try {
      namespace = await import(entry)
    } catch (err) {
      const code = (err as { code?: string }).code
      const missing = (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && firstLine(err).includes(`'${entry}'`)
      throw fail(missing
        ? `"${entry}" is neither a built-in provider (${Object.keys(builtinProviders).join(', ')}) nor an installed package; module paths start with ./`
        : `package "${entry}" failed to load: ${firstLine(err)}`)
    }
  }
  const provider = namespace.default
  const problems = providerProblems(provider)
  if (problems.length > 0) throw fail(`${source} "${entry}" does not export a valid provider: ${problems.join('; ')}`)
  return { entry, source, provider: provider as Provider }
}
