// Records as MCP resources: `gatehouse://records/<family>` (the family's first page, as
// list_<family> without arguments) and `gatehouse://records/<family>/<id>` (one record, as
// get_<family> with id). `resources/templates/list` gives a template per family the caller
// can read; reading runs the same operations as the tools and routes, so scopes, owner
// visibility, redaction and the read boundary are the operations' own. These are also the
// URIs `subscriptions/listen` watches (change-subscriptions.ts).
import type { ResourceTemplateType, TextResourceContents } from '@modelcontextprotocol/server'
import type { Caller } from '../kernel/caller.js'
import type { Resource } from '../resources/index.js'
import { listRecords } from '../operations/list-records.js'
import { showRecord } from '../operations/show-record.js'
import type { Services } from '../operations/services.js'

export const RECORDS_PREFIX = 'gatehouse://records/'
const RECORD_URI = /^gatehouse:\/\/records\/([a-z][a-z0-9-]*)(?:\/([1-9][0-9]{0,15}))?$/

/** What a record URI names: a family, and one of its records when `id` is set. */
export interface RecordTarget {
  readonly family: Resource
  readonly id?: number
}

/** The family and id a URI names, or a problem (unknown family, or a family this caller cannot read). */
export function parseRecordUri(services: Services, caller: Caller, uri: string): RecordTarget | string {
  const m = RECORD_URI.exec(uri)
  if (!m) return `Unknown resource: ${uri}; records are ${RECORDS_PREFIX}<family> and ${RECORDS_PREFIX}<family>/<id>`
  // A family switched off by its flag is on no surface (its routes are 404, its tools absent).
  const family = services.resources.enabled(services.settings).find((r) => r.type === m[1])
  if (!family) return `Unknown resource: ${uri}; no family ${m[1]} is served`
  if (!caller.scopes.has(family.scope as string)) return `Missing required scope: ${family.scope as string} (to read ${uri})`
  return m[2] === undefined ? { family } : { family, id: Number(m[2]) }
}

export const recordUri = (type: string, id?: string | number) => `${RECORDS_PREFIX}${type}${id === undefined ? '' : `/${id}`}`

/** One template per family the caller can read, of those served now. */
export function recordTemplates(services: Services, caller: Caller): ResourceTemplateType[] {
  return services.resources.enabled(services.settings).filter((r) => caller.scopes.has(r.scope as string)).map((r) => ({
    uriTemplate: `${RECORDS_PREFIX}${r.type}/{id}`,
    name: `${r.type}-record`,
    title: `One of ${r.type}`,
    description: `One ${r.type} record by id, as get_${r.type.replace(/-/g, '_')} answers it (needs ${r.scope as string}). ${RECORDS_PREFIX}${r.type} is the first page of the list; both can be watched with subscriptions/listen`,
    mimeType: 'application/json',
  }))
}

export async function readRecords(services: Services, caller: Caller, target: RecordTarget, uri: string): Promise<TextResourceContents> {
  const answer = target.id === undefined
    ? await listRecords(services, target.family, {}, caller)
    : await showRecord(services, target.family, { id: target.id }, caller)
  return { uri, mimeType: 'application/json', text: answer.rawData }
}
