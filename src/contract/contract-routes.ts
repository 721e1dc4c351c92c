// The contract's own routes: /capabilities, /openapi.json and /schema. They describe the whole
// registry, which they are part of, so they take a getter for the finished route list.
import type { MachineRoute } from '../kernel/machine-route.js'
import type { Services } from '../operations/services.js'
import { capabilitiesRoute } from './capabilities.js'
import { openapiRoute } from './openapi.js'
import { schemaCatalogRoute } from './schema-catalog.js'

export function contractRoutes(services: Services, getRoutes: () => readonly MachineRoute[]): MachineRoute[] {
  return [
    capabilitiesRoute(services.scopes, services.settings, getRoutes, services.providers.scopes()),
    openapiRoute(services.settings, getRoutes),
    schemaCatalogRoute(services.settings, getRoutes),
  ]
}
