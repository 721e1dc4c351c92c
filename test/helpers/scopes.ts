// The scope catalogue of an app built with the default families, for tests that need scope
// lists before they build an app.
import { ScopeCatalog } from '../../src/auth/scopes.js'
import { defaultRegistry } from '../../src/resources/index.js'

export const defaultScopes = new ScopeCatalog(defaultRegistry)
export const scopeCatalog = defaultScopes.entries
export const readScopes = defaultScopes.readScopes
export const isKnownScope = (scope: string) => defaultScopes.isKnown(scope)
