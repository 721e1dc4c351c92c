// The content model as JSON, computed from the resource registry: every family the app
// serves now (flags applied), with its scopes, statuses, parameters, selectors, references
// and item schema. docs/content-model.md is the prose form of the same declarations; this
// one is for programs (the MCP endpoint offers it as a resource).
import type { ResourceRegistry } from '../resources/index.js'
import type { FamilyFlag } from '../resources/declare.js'
import { toJsonSchema, type JsonSchema } from './json-schema.js'

export interface ContentModelFamily {
  readonly type: string
  readonly summary: string
  readonly group: string
  readonly scope: string
  readonly sensitiveScope: string | null
  readonly sensitiveFields: readonly string[]
  readonly statuses: { readonly values: readonly string[]; readonly default: string | null; readonly otherStatusesScope: string | null } | null
  readonly sort: readonly string[]
  readonly listParameters: readonly string[]
  readonly selectors: readonly string[]
  readonly selectorFilters: readonly string[]
  /** Its `types` value in the change feed; null when it has none. */
  readonly changeType: string | null
  readonly eventType: string | null
  readonly owner: string | null
  readonly references: Readonly<Record<string, string>>
  readonly computedFields: readonly string[]
  readonly item: JsonSchema
}

export function contentModel(resources: ResourceRegistry, flags: Readonly<Record<FamilyFlag, boolean>>): { readonly families: ContentModelFamily[] } {
  return {
    families: resources.enabled(flags).map((r) => ({
      type: r.type,
      summary: r.summary,
      group: r.group ?? 'content',
      scope: r.scope as string,
      sensitiveScope: r.sensitiveScope ?? null,
      sensitiveFields: [...r.sensitiveKeys],
      statuses: r.status ? { values: [...r.status.values], default: r.status.default ?? null, otherStatusesScope: r.status.otherStatusesScope ?? null } : null,
      sort: ['updatedAt', ...(r.sort?.allowed ?? []).filter((k) => k !== 'updatedAt')],
      listParameters: Object.keys(r.listParams ?? {}),
      selectors: (r.selectors ?? []).map((s) => s.name),
      selectorFilters: (r.selectorFilters ?? []).map((s) => s.name),
      changeType: r.changeFeed === false ? null : r.changeType,
      eventType: r.eventType ?? null,
      owner: r.owner?.type ?? null,
      references: Object.fromEntries(Object.entries(r.references ?? {}).map(([field, ref]) => [field, ref.type])),
      computedFields: [...(r.computed ?? [])],
      item: toJsonSchema(r.fullItem),
    })),
  }
}
