// MCP resources: the machine-readable contract an agent reads before it calls tools — the
// OpenAPI document, the capabilities document (for this caller) and the content model. Each
// needs the scope its HTTP route needs, and is listed only to callers holding it. Beside them,
// the records (record-resources.ts): a template per family the caller can read.
import type { Resource as ResourceInfo, ResourceTemplateType, TextResourceContents } from '@modelcontextprotocol/server'
import type { MachineRoute } from '../kernel/machine-route.js'
import type { Caller } from '../kernel/caller.js'
import { capabilitiesFor } from '../contract/capabilities.js'
import { contentModel } from '../contract/content-model.js'
import { openapiDocument } from '../contract/openapi.js'
import type { Services } from '../operations/services.js'
import { parseRecordUri, readRecords, recordTemplates } from './record-resources.js'

export interface McpResource {
  readonly uri: string
  readonly name: string
  readonly title: string
  readonly description: string
  readonly mimeType: 'application/json'
  readonly scope: string
  read(caller: Caller): string
}

export function contractResources(services: Services, routes: readonly MachineRoute[]): McpResource[] {
  const { settings } = services
  const describe = capabilitiesFor(services.scopes, settings, () => routes)
  let model: string | undefined
  return [
    {
      uri: 'gatehouse://contract/openapi.json', name: 'openapi', title: 'OpenAPI document', mimeType: 'application/json', scope: 'openapi:read',
      description: 'OpenAPI 3.1 document of every enabled machine-API endpoint (the same as GET /gatehouse/v1/openapi.json)',
      read: () => openapiDocument(routes, settings).text,
    },
    {
      uri: 'gatehouse://contract/capabilities', name: 'capabilities', title: 'Capabilities', mimeType: 'application/json', scope: 'capabilities:read',
      description: 'Scopes, flags, limits, error taxonomy and endpoints, with your granted scopes (the data of GET /gatehouse/v1/capabilities)',
      read: (caller) => JSON.stringify(describe(caller)),
    },
    {
      uri: 'gatehouse://contract/content-model', name: 'content-model', title: 'Content model', mimeType: 'application/json', scope: 'schema:read',
      description: 'Every resource family served: scopes, statuses, list parameters, selectors, references and the JSON Schema of its items',
      read: () => (model ??= JSON.stringify(contentModel(services.resources, settings))),
    },
  ]
}

export const describeResource = (r: McpResource): ResourceInfo =>
  ({ uri: r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })

/** Everything `resources/*` answers: the contract documents, and the records through their templates. */
export interface McpResources {
  readonly fixed: readonly McpResource[]
  templates(caller: Caller): ResourceTemplateType[]
  /** The contents, or why not (a message naming the missing scope or the unknown URI). */
  read(caller: Caller, uri: string): Promise<TextResourceContents | { readonly problem: string; readonly scopeDenied: boolean }>
}

export function mcpResources(services: Services, routes: readonly MachineRoute[]): McpResources {
  const fixed = contractResources(services, routes)
  return {
    fixed,
    templates: (caller) => recordTemplates(services, caller),
    async read(caller, uri) {
      const resource = fixed.find((r) => r.uri === uri)
      if (resource) {
        if (!caller.scopes.has(resource.scope)) return { problem: `Missing required scope: ${resource.scope}`, scopeDenied: true }
        return { uri: resource.uri, mimeType: resource.mimeType, text: resource.read(caller) }
      }
      const target = parseRecordUri(services, caller, uri)
      if (typeof target === 'string') return { problem: target, scopeDenied: target.startsWith('Missing required scope') }
      return readRecords(services, caller, target, uri)
    },
  }
}
