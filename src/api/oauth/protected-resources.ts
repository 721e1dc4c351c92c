// Gatehouse's OAuth protected resources (RFC 9728): the MCP endpoint and the machine API. Each
// is identified by its URL; its metadata (the authorization server, the scopes) is published
// under /.well-known/oauth-protected-resource followed by its path, and the root form
// answers for the MCP endpoint, the resource agent hosts look for.
import type { Settings } from '../../kernel/settings.js'
import { BASE_PATH } from '../../kernel/machine-route.js'
import { MCP_PATH } from '../../contract/service-info.js'
import { DOCS_PATH } from '../../contract/docs-page.js'
import type { ProtectedResource } from '../machine-api.js'

export const PRM_PATH = '/.well-known/oauth-protected-resource'

export interface GatehouseResources {
  readonly mcp: ProtectedResource
  readonly api: ProtectedResource
}

export function protectedResources(settings: Settings): GatehouseResources {
  const at = (path: string): ProtectedResource => ({ resource: settings.baseUrl + path, metadataUrl: settings.baseUrl + PRM_PATH + path })
  return { mcp: at(MCP_PATH), api: at(BASE_PATH) }
}

/** The metadata document of one resource. */
export function resourceMetadata(settings: Settings, resource: ProtectedResource, name: string, scopes: readonly string[]): Record<string, unknown> {
  return {
    resource: resource.resource,
    authorization_servers: [settings.oauthIssuer],
    scopes_supported: scopes,
    bearer_methods_supported: ['header'],
    resource_name: name,
    resource_documentation: settings.baseUrl + DOCS_PATH,
  }
}
