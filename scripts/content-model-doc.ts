// Prints docs/content-model.md from the resource declarations, so the reference cannot
// drift from what the store validates. `npx tsx scripts/content-model-doc.ts --write`
// rewrites the file; test/store/content-model-doc.test.ts fails when it is out of date.
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Kind, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { allResources } from '../src/resources/index.js'
import { ORDER_TRANSITIONS } from '../src/resources/order-status.js'
import type { Resource } from '../src/resources/declare.js'
import { defaultFor } from '../src/store/documents.js'

export const CONTENT_MODEL_PATH = fileURLToPath(new URL('../docs/content-model.md', import.meta.url))

/**
 * What the write service computes, per resource and field (the families' declared hooks, src/resources/*-hooks.ts).
 * Every declared computed field must be described here, or generation fails.
 */
const DERIVED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  products: {
    totalStock: 'sum of its variants\' `stock`; `null` when any variant has unlimited stock; `0` with no variants',
    hasUnlimitedStock: 'true when any of its variants has unlimited stock',
    defaultSku: '`sku` of the variant marked `isDefault`, else of its first variant (by id); `null` with no variants',
    defaultPrice: '`price` of that same default variant; `null` with no variants',
    variants: 'summary of its variants (by id): `id, sku, title, price, stock, hasUnlimitedStock, isAvailable, isDefault`',
  },
  variants: {
    isAvailable: '`status` is `live` and (`hasUnlimitedStock` or `stock` > 0)',
  },
  categories: {
    level: '1 without a parent, else the parent\'s level + 1 (the parent must be in the same group)',
  },
  orders: {
    itemTotal: 'sum of `lineItems[].subtotal`, rounded to cents',
    paidStatus: '`refunded` when `totalRefunded` > 0 and ≥ `totalPaid`; else `unpaid` (nothing paid), `partial`, `paid` or `overPaid` comparing `totalPaid` with `totalPrice`',
  },
}

/** Cascades and rules that are not a field of their own. */
const ENTRY_TYPE_RULE = '`type` is one of its section\'s `entryTypes` handles when the section lists any (a 400 naming `type` with the allowed handles).'

const RULES: Readonly<Record<string, readonly string[]>> = {
  products: ['Deleting a product deletes its variants in the same transaction; each variant and the product leave a `deleted` tombstone in the change log.'],
  variants: [
    'Creating, updating (including a change of `productId`, which refreshes both products) or deleting a variant refreshes its product\'s derived fields in the same transaction, with an `updated` change for the product.',
    'A product has one default variant: a variant written with `isDefault: true` takes it from the product\'s other variants (each set to false, with an `updated` change).',
  ],
  orders: [
    '`totalRefunded` may not exceed `totalPaid` (400 naming `totalRefunded`).',
    'Status changes follow these transitions (admin API, import and the governed `order.setStatus` alike); any other is a `409 CONFLICT` naming the current and the requested status, and setting the same status again is allowed: '
      + Object.entries(ORDER_TRANSITIONS).map(([from, to]) => `\`${from}\` → ${to.length > 0 ? to.map((s) => `\`${s}\``).join(', ') : 'none (final)'}`).join('; ') + '.',
    '`isCompleted` and `dateOrdered` follow the status on every write: `isCompleted` is true for every status but `cart`; a cart has no `dateOrdered` (null); an order leaving `cart` without a `dateOrdered` gets the time of that write. Values given for them that disagree with the status are replaced.',
  ],
  categories: [
    'A category cannot be its own parent, nor its own ancestor (a `parentId` below it is a 400 naming `parentId`).',
    'A category with children keeps its `group` (a 400 naming `group`: move or detach the children first).',
    'When a category moves, the `level` of each category below it follows in the same transaction, each with an `updated` change.',
  ],
  sections: ['A section\'s `handle` does not change while entries or drafts name it: a `409 CONFLICT` lists them, as deleting it would.'],
  entries: [ENTRY_TYPE_RULE],
  'entry-drafts': ['Drafts are kept apart from published entries and are never served as entries; governed actions write them.', ENTRY_TYPE_RULE],
}

function describeType(s: TSchema): string {
  if (s.anyOf) {
    const variants = s.anyOf as TSchema[]
    const nonNull = variants.filter((v) => v.type !== 'null')
    const nullable = nonNull.length < variants.length
    const inner = nonNull.every((v) => v.const !== undefined)
      ? nonNull.map((v) => `\`${String(v.const)}\``).join(', ')
      : nonNull.map(describeType).join(' or ')
    const text = nonNull.every((v) => v.const !== undefined) ? `one of ${inner}` : inner
    return nullable ? `${text}, or null` : text
  }
  if (s[Kind] === 'Record') return 'object (free-form custom fields)'
  switch (s.type) {
    case 'string': {
      const parts: string[] = []
      if (s.format) parts.push(s.format as string)
      if (s.pattern) parts.push(`\`${s.pattern as string}\``)
      if (s.minLength !== undefined && s.maxLength !== undefined) parts.push(`${s.minLength as number}–${s.maxLength as number} chars`)
      else if (s.maxLength !== undefined) parts.push(`≤ ${s.maxLength as number} chars`)
      return parts.length ? `string (${parts.join(', ')})` : 'string'
    }
    case 'integer': case 'number': {
      const name = s.type === 'integer' ? 'integer' : 'number'
      return s.minimum !== undefined ? `${name} ≥ ${s.minimum as number}` : name
    }
    case 'boolean': return 'boolean'
    case 'array': return `array of ${describeType(s.items as TSchema)}`
    case 'object': {
      const props = Object.entries((s.properties ?? {}) as Record<string, TSchema>)
      return `object { ${props.map(([k, v]) => `${k}: ${describeType(v)}`).join('; ')} }`
    }
    default: return 'any JSON value'
  }
}

const escapeCell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function fieldRows(r: Resource): string[] {
  const props = r.fullItem.properties as Record<string, TSchema>
  const required = new Set(r.required ?? [])
  const computed = new Set(r.computed ?? [])
  const derived = DERIVED[r.type] ?? {}
  for (const c of computed) if (!derived[c]) throw new Error(`${r.type}.${c} is computed but DERIVED does not describe it`)
  const rows = ['| field | type | on create | notes |', '|---|---|---|---|']
  for (const [name, schema] of Object.entries(props)) {
    const base = ['id', 'uid', 'createdAt', 'updatedAt'].includes(name)
    const notes: string[] = []
    if (base) notes.push('set by the store; read-only')
    if (r.sensitiveKeys.includes(name)) notes.push(`**sensitive**: only with \`${r.sensitiveScope ?? 'n/a'}\``)
    const column = r.columns[name]
    if (column) notes.push(column.unique ? 'indexed, unique' : column.uniqueWith ? `indexed, unique per ${column.uniqueWith.join(' + ')}` : 'indexed')
    if (name === 'status' && r.status) notes.push(r.status.default ? `default \`${r.status.default}\`` : `default \`${r.status.values[0]}\``)
    const ref = r.references?.[name]
    if (ref) notes.push(`must name an existing ${ref.type} record by ${ref.by ?? 'id'}`)
    if (computed.has(name)) notes.push(`computed: ${derived[name]}`)
    // The store also requires a property whose type has no valid default (see StoreWriter.createMany).
    const noDefault = !base && !computed.has(name) && !Value.Check(schema, defaultFor(r, name, schema))
    const onCreate = base || computed.has(name) ? '—' : required.has(name) || noDefault ? 'required' : 'optional'
    rows.push(`| \`${name}\` | ${escapeCell(describeType(schema))} | ${onCreate} | ${escapeCell(notes.join('; '))} |`)
  }
  return rows
}

function listParamText(name: string, p: NonNullable<Resource['listParams']>[string], r: Resource): string {
  switch (p.kind) {
    case 'equals': return `\`${name}\` (equals \`${p.column}\`)`
    case 'search': return `\`${name}\` (contains, case-insensitive, in ${(r.searchColumns ?? []).map((c) => `\`${c}\``).join(', ')})`
    case 'arrayContains': return `\`${name}\` (a value of \`${p.path}[]\`)`
    case 'withinDays': return `\`${name}\` (\`${p.column}\` in the last N days)`
    case 'booleanWhere': return `\`${name}\` (boolean: ${p.description})`
    case 'booleanColumn': return `\`${name}\` (boolean, equals \`${p.column}\`${p.default !== undefined ? `; ${p.default} unless \`${name}\` or \`status\` is given` : ''})`
    case 'integer': return `\`${name}\` (integer ≥ ${p.min}, default ${p.default})`
  }
}

function resourceSection(r: Resource): string[] {
  const out = [`## ${r.type}`, '', `${r.summary}. Table \`${r.table}\`; change-feed type \`${r.changeType}\`${r.eventType ? `; webhook events as \`${r.eventType}\`` : ''}.`, '']
  if (r.scope) {
    const gate = r.flag ? ` Served only when \`${flagSetting(r.flag)}=true\`.` : ''
    out.push(`- Machine API: \`GET /gatehouse/v1/${r.type}\`${r.selectors ? ` and \`/gatehouse/v1/${r.type}/show\`` : ''}, scope \`${r.scope}\`${r.sensitiveScope ? `; sensitive fields with \`${r.sensitiveScope}\`` : ''}.${gate}`)
  } else {
    out.push('- Machine API: not served (internal to the store).')
  }
  out.push(`- Admin API: \`/gatehouse/admin/v1/${r.type}\` (see [admin-api.md](admin-api.md)).`)
  if (r.status) {
    const extra = r.status.otherStatusesScope ? `; other statuses need \`${r.status.otherStatusesScope}\`` : ''
    out.push(`- Statuses: ${r.status.values.map((v) => `\`${v}\``).join(', ')}; list default ${r.status.default ? `\`${r.status.default}\` (\`all\` removes it)` : 'none (all statuses)'}${extra}.`)
  }
  if (r.selectors) {
    const optional = (r.selectorFilters ?? []).map((s) => `\`${s.name}\``)
    out.push(`- Detail selectors: exactly one of ${r.selectors.map((s) => `\`${s.name}\``).join(', ')}${optional.length ? `; optional ${optional.join(', ')}` : ''}.`)
  }
  const params = Object.entries(r.listParams ?? {}).map(([n, p]) => listParamText(n, p, r))
  if (r.scope) {
    const fixed = [r.status ? '`status`' : '', r.sort ? `\`sort\` (${r.sort.allowed.map((s) => `\`${s}\``).join(', ')}; \`-\` reverses)` : ''].filter(Boolean)
    out.push(`- List parameters: \`limit\`, \`cursor\`, \`updatedSince\`, \`fields\`, \`filter\`${[...fixed, ...params].map((p) => `, ${p}`).join('')}.`)
  }
  if (r.sensitiveKeys.length) out.push(`- Sensitive: ${r.sensitiveKeys.map((k) => `\`${k}\``).join(', ')} (stored apart from the public document).`)
  for (const rule of RULES[r.type] ?? []) out.push(`- ${rule}`)
  out.push('', ...fieldRows(r), '')
  return out
}

function flagSetting(flag: string): string {
  return 'PLUGIN_GATEHOUSE_' + flag.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase()
}

export function contentModelMarkdown(): string {
  const overview = [
    '| resource | read scope | sensitive scope | statuses | detail selectors |',
    '|---|---|---|---|---|',
    ...allResources.map((r) => `| [\`${r.type}\`](#${r.type}) | ${r.scope ? `\`${r.scope}\`` : '(internal)'}${r.flag ? ` (flag \`${flagSetting(r.flag)}\`)` : ''} | ${r.sensitiveScope ? `\`${r.sensitiveScope}\`` : '—'} | ${r.status ? r.status.values.join(', ') : '—'} | ${r.selectors ? r.selectors.map((s) => s.name).join(', ') : '—'} |`),
  ]
  return [
    '# Content model',
    '',
    '<!-- Generated by `npx tsx scripts/content-model-doc.ts --write` from src/resources/. Do not edit by hand: test/store/content-model-doc.test.ts fails when this file and the declarations differ. -->',
    '',
    'Gatehouse keeps content and commerce records in its own store. Each resource family is declared once',
    '(`src/resources/`), and the tables, validation, machine-API routes and this page come from that',
    'declaration. Every item carries `id` (integer), `uid` (uuid), `createdAt` and `updatedAt` (ISO 8601),',
    'set by the store. Custom fields live in a free-form `fields` object where a family has one.',
    '',
    'Writes (admin API, import, seed, governed actions) all go through one write service: it validates the',
    'input (a 400 names each bad field, nothing is written), fills defaults, computes derived values and',
    'appends to the change log in the same transaction. A delete leaves a `deleted` tombstone in the change',
    'log. On create, a field left out takes its default: `status` the family\'s default status (or its first',
    'status), nullable fields `null`, arrays `[]`, objects `{}`, booleans `false`, numbers `0`. Computed',
    'fields and `id`, `uid`, `createdAt`, `updatedAt` are rejected on input.',
    '',
    'Sensitive fields are kept apart from the public document and served by the machine API only to callers',
    'holding the family\'s `:read_sensitive` scope; the admin API always returns them.',
    '',
    '## Overview',
    '',
    ...overview,
    '',
    ...allResources.flatMap(resourceSection),
    '## Change log',
    '',
    'Every write appends one row per changed record, in the write\'s transaction: `seq` (increasing, in',
    'commit order also under concurrent writers on PostgreSQL), `resourceType` (the change-feed type above),',
    '`resourceId`, `action` (`created`, `updated`, `deleted`), `occurredAt` and `updatedAt`. A write that',
    'changes derived values of another record (a variant write refreshing its product) appends that record\'s',
    '`updated` change too. `GET /gatehouse/v1/changes` serves the log with the current document as `snapshot`',
    '(`null` for tombstones).',
    '',
  ].join('\n')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = contentModelMarkdown()
  if (process.argv.includes('--write')) writeFileSync(CONTENT_MODEL_PATH, text)
  else process.stdout.write(text)
}
