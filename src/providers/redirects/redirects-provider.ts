// The built-in `redirects` provider: URL redirects kept in a file (PLUGIN_GATEHOUSE_REDIRECTS_FILE),
// served as /plugins/redirects/redirects and /plugins/redirects/redirects/{id}. Written against
// the public provider interface like any external provider; only its settings are Gatehouse's.
import { resolve } from 'node:path'
import { Type } from '@sinclair/typebox'
import { SettingsError } from '../../kernel/settings.js'
import { booleanParam, defineProvider, defineResource, parseBooleanParam, ProviderUnavailableError } from '../index.js'
import { Redirect, STATUS_CODES } from './redirect-rules.js'
import { RedirectsFile } from './redirects-file.js'

const SETTING = 'PLUGIN_GATEHOUSE_REDIRECTS_FILE'

const Params = Type.Object({
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive text in from or to' })),
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Exactly this source path' })),
  statusCode: Type.Optional(Type.Integer({ enum: [...STATUS_CODES], description: 'Only redirects with this status' })),
  enabled: Type.Optional(booleanParam('Only enabled (true) or disabled (false) redirects')),
})

export function redirectsProvider(file: string) {
  let redirects: RedirectsFile | undefined

  /** The rules now, or unavailable while the file is missing or invalid. */
  const rules = async () => {
    if (!redirects) throw new ProviderUnavailableError('the redirects provider has not started')
    const { set, summary } = await redirects.current()
    // Readiness shows this message to machine clients: no local path and no value from the file.
    if (summary !== null) throw new ProviderUnavailableError(`redirects file: ${summary}`)
    return set
  }

  const resource = defineResource({
    name: 'redirects',
    summary: 'URL redirects',
    description: `URL redirects kept in a file (${SETTING}), CSV with a header row or JSON lines, re-read when it changes. Ordered by id.`,
    item: Redirect,
    params: Params,
    async list({ params, limit, position }) {
      const { rules: all } = await rules()
      const q = params.q?.toLowerCase()
      const enabled = params.enabled === undefined ? undefined : parseBooleanParam(params.enabled)
      const after = typeof position === 'string' ? position : undefined
      const items = []
      for (const r of all) {
        if (after !== undefined && r.id <= after) continue
        if (params.from !== undefined && r.from !== params.from) continue
        if (params.statusCode !== undefined && r.statusCode !== params.statusCode) continue
        if (enabled !== undefined && r.enabled !== enabled) continue
        if (q !== undefined && !r.from.toLowerCase().includes(q) && !r.to.toLowerCase().includes(q)) continue
        // One more than asked tells whether a next page exists.
        if (items.length === limit) return { items, next: items[items.length - 1].id }
        items.push(r)
      }
      return { items }
    },
    async get(id) {
      return (await rules()).byId.get(id)
    },
  })

  return defineProvider({
    plugin: 'redirects',
    description: 'URL redirects kept in a file',
    resources: [resource],
    async start({ logger }) {
      redirects = new RedirectsFile(resolve(file), logger)
      const problem = await redirects.open()
      if (problem !== null) {
        redirects.close()
        throw new SettingsError(SETTING, `${file}: ${problem}`)
      }
    },
    stop() {
      redirects?.close()
    },
    async available() {
      await rules()
    },
  })
}
