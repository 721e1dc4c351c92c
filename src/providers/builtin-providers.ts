// Providers that ship with Gatehouse, by the name PLUGIN_GATEHOUSE_PROVIDERS uses for them.
// They are built from settings, so their own settings are validated with the others.
import type { Settings } from '../kernel/settings.js'
import type { Provider } from './provider.js'
import { redirectsProvider } from './redirects/redirects-provider.js'

export const builtinProviders: Readonly<Record<string, (settings: Settings) => Provider>> = {
  redirects: (settings) => redirectsProvider(settings.redirectsFile ?? ''),
}
