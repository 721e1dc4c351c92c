// A resource type is declared once, as data. Routes, validation, storage tables, the
// OpenAPI document, /capabilities, /schema and the docs are all derived from these
// declarations. `declareResource` checks a declaration and returns a frozen `Resource`.
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import type { FeatureFlag } from '../kernel/settings.js'
import type { FamilyHooks } from './hooks.js'
import { checkDeclaredNames } from './declared-names.js'
import './formats.js'

/** Settings flags a family can be switched on by. */
export type FamilyFlag = Extract<FeatureFlag, 'enableAddressesApi' | 'enableUsersApi'>

export type ColumnType = 'text' | 'integer' | 'real' | 'boolean' | 'timestamp'

/** A column mirrored from the document so queries can use an index. Name = document field. */
/** Declared by the family an axis lists (products for `productIds`). */
export interface BoundaryAxisDeclaration {
  /** Property name in boundaries: `productIds`, `sections`. */
  readonly name: string
  /** What a value names: `id` (whole numbers) or a unique text column (`handle`). */
  readonly key: string
  /** One record, in words: `product`, `section`. */
  readonly noun: string
  /** Sample values for forms: `3, 4`. */
  readonly example: string
}

export interface ColumnDeclaration {
  readonly type: ColumnType
  readonly unique?: boolean
  /** Unique only together with these other columns (e.g. slug per section). */
  readonly uniqueWith?: readonly string[]
}

/** How a list query parameter narrows the result. */
export type ListParamDeclaration =
  | { readonly kind: 'equals'; readonly column: string; readonly type: 'text' | 'integer' }
  | { readonly kind: 'search' } // `q`/`search`: case-insensitive contains over `searchColumns`
  | { readonly kind: 'arrayContains'; readonly path: string } // a value in a document array
  | { readonly kind: 'withinDays'; readonly column: string; readonly description?: string } // column >= now - N days
  | BooleanWhereParam
  | BooleanColumnParam
  | { readonly kind: 'integer'; readonly min: number; readonly default: number } // parameter read by another

/**
 * A boolean parameter that, when true, adds column conditions: `lowStock=true` is
 * `hasUnlimitedStock = false AND totalStock <= lowStockThreshold`. A `param` value is read
 * from another (`integer`) list parameter.
 */
export interface BooleanWhereParam {
  readonly kind: 'booleanWhere'
  readonly description: string
  readonly where: readonly { readonly column: string; readonly op: '=' | '<='; readonly value?: string | number | boolean; readonly param?: string }[]
  /** Refused together with `updatedSince` (the spec's "full-sync mode only"). */
  readonly fullSyncOnly?: boolean
}

/**
 * A boolean column the caller may ask to be true or false (`isCompleted=false`). `default`
 * applies when the caller gives neither this parameter nor `status`: any status, `all`
 * included, is an explicit choice of which records to see (orders hide carts by default, and
 * `status=all` means every order).
 */
export interface BooleanColumnParam {
  readonly kind: 'booleanColumn'
  readonly column: string
  readonly description: string
  readonly default?: boolean
}

export interface StatusDeclaration {
  readonly values: readonly string[]
  /** Applied when the caller gives no `status`; `all` removes it. Undefined: no default. */
  readonly default?: string
  /** Items whose status differs from the default need this scope (entries:read_all_statuses). */
  readonly otherStatusesScope?: string
}

export interface SelectorDeclaration {
  readonly name: string
  readonly column: string
  readonly type: 'text' | 'integer'
}

export interface ResourceDeclaration {
  /** The list path and admin path segment: `entries`, `global-sets`. */
  readonly type: string
  /** Name in the change feed's `types` (`globalsets`, `contentblocks`). */
  readonly changeType: string
  /** Singular name webhook events carry (`entry`, `product`, `order`); undefined: emits none. */
  readonly eventType?: string
  /** Left out of the change feed's `types` (sections: the spec's list has no such type). */
  readonly changeFeed?: false
  /** Not created by NDJSON import (entry drafts: written only by governed actions). */
  readonly importable?: false
  readonly table: string
  readonly summary: string
  /** Scope-catalogue group of its scopes. */
  readonly group?: 'content' | 'commerce' | 'people'
  /** Scope to read it; undefined for internal resources the machine API does not serve. */
  readonly scope?: string
  readonly sensitiveScope?: string
  /** Settings flag that must be on for the machine API to serve it. */
  readonly flag?: FamilyFlag
  /**
   * The record belongs to a record of another family (a content block to its entry): it is
   * visible to a caller only while its owner is (an entry in another status than the
   * default needs that family's `otherStatusesScope`).
   */
  readonly owner?: { readonly type: string; readonly column: string }
  /**
   * Boundaries can list records of this family: the axis (`productIds`) and what its values
   * name (`id`, or a unique column such as a section's `handle`). See boundary-axes.ts.
   */
  readonly boundaryAxis?: BoundaryAxisDeclaration
  /**
   * How a record lies inside a boundary: axis name → the column holding that axis's value
   * (`{ sections: 'section', entryIds: 'id' }`; `id` for the record's own). Inside when any
   * named column matches. Owned families follow their owner; every other family is outside
   * every boundary.
   */
  readonly readBoundary?: Readonly<Record<string, string>>
  /** Behaviour only this family has (derived values, cascades), run by the write service. */
  readonly hooks?: FamilyHooks
  readonly columns: Readonly<Record<string, ColumnDeclaration>>
  readonly searchColumns?: readonly string[]
  readonly status?: StatusDeclaration
  /** Sort keys besides `updatedAt` (`createdAt` or an indexed column); a leading `-` reverses. */
  readonly sort?: { readonly allowed: readonly string[] }
  /** Detail selectors: exactly one must be given. */
  readonly selectors?: readonly SelectorDeclaration[]
  /** Optional narrowing parameters for the detail endpoint. */
  readonly selectorFilters?: readonly SelectorDeclaration[]
  readonly listParams?: Readonly<Record<string, ListParamDeclaration>>
  /** Public item properties (without id, uid, createdAt, updatedAt, added for every item). */
  readonly properties: TProperties
  /** Properties kept apart and served only with `sensitiveScope`. */
  readonly sensitive?: TProperties
  /** Properties the write service computes; rejected on input. */
  readonly computed?: readonly string[]
  /** Properties required on create. */
  readonly required?: readonly string[]
  /** Properties that must name an existing record of another type (by id, or by `by`). */
  readonly references?: Readonly<Record<string, { readonly type: string; readonly by?: string }>>
}

export interface Resource extends ResourceDeclaration {
  readonly item: TObject
  readonly fullItem: TObject
  readonly createInput: TObject
  readonly updateInput: TObject
  readonly sensitiveKeys: readonly string[]
  readonly publicKeys: readonly string[]
}

export const baseProperties = {
  id: Type.Integer({ minimum: 1 }),
  uid: Type.String({ format: 'uuid' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}

export function declareResource(d: ResourceDeclaration): Resource {
  checkDeclaredNames(d)
  const sensitive = d.sensitive ?? {}
  const computed = new Set(d.computed ?? [])
  const all = { ...d.properties, ...sensitive }
  for (const name of Object.keys(d.columns)) {
    if (!(name in all)) throw new Error(`${d.type}: column ${name} is not a declared property`)
  }
  for (const name of d.searchColumns ?? []) {
    if (!(name in d.columns)) throw new Error(`${d.type}: search column ${name} is not an indexed column`)
  }
  for (const s of [...(d.selectors ?? []), ...(d.selectorFilters ?? [])]) {
    if (s.column !== 'id' && s.column !== 'uid' && !(s.column in d.columns)) {
      throw new Error(`${d.type}: selector ${s.name} uses unindexed column ${s.column}`)
    }
  }
  for (const [name, p] of Object.entries(d.listParams ?? {})) {
    const cols = p.kind === 'equals' || p.kind === 'withinDays' || p.kind === 'booleanColumn' ? [p.column] : p.kind === 'booleanWhere' ? p.where.map((w) => w.column) : []
    for (const col of cols) if (!(col in d.columns)) throw new Error(`${d.type}: list parameter ${name} uses unindexed column ${col}`)
    if (p.kind === 'booleanWhere') {
      for (const w of p.where) {
        if (w.param !== undefined && d.listParams?.[w.param]?.kind !== 'integer') throw new Error(`${d.type}: list parameter ${name} reads ${w.param}, which is not an integer parameter`)
      }
    }
  }
  for (const key of d.sort?.allowed ?? []) {
    if (key !== 'updatedAt' && key !== 'createdAt' && !(key in d.columns)) throw new Error(`${d.type}: sort key ${key} is not an indexed column`)
  }
  if (d.owner && !(d.owner.column in d.columns)) throw new Error(`${d.type}: owner column ${d.owner.column} is not an indexed column`)
  for (const column of Object.values(d.readBoundary ?? {})) {
    if (column !== 'id' && !(column in d.columns)) throw new Error(`${d.type}: read boundary column ${column} is not an indexed column`)
  }
  const axisKey = d.boundaryAxis?.key
  if (axisKey !== undefined && axisKey !== 'id' && !(d.columns[axisKey]?.type === 'text' && d.columns[axisKey]?.unique)) {
    throw new Error(`${d.type}: boundary axis key ${axisKey} is neither id nor a unique text column`)
  }
  const writable = Object.fromEntries(Object.entries(all).filter(([k]) => !computed.has(k)))
  const required = new Set(d.required ?? [])
  const createProps = Object.fromEntries(
    Object.entries(writable).map(([k, s]) => [k, required.has(k) ? s : Type.Optional(s as TSchema)]),
  )
  const updateProps = Object.fromEntries(Object.entries(writable).map(([k, s]) => [k, Type.Optional(s as TSchema)]))
  return Object.freeze({
    ...d,
    item: Type.Object({ ...baseProperties, ...d.properties }, { additionalProperties: false }),
    fullItem: Type.Object({ ...baseProperties, ...d.properties, ...optionalAll(sensitive) }, { additionalProperties: false }),
    createInput: Type.Object(createProps, { additionalProperties: false }),
    updateInput: Type.Object(updateProps, { additionalProperties: false, minProperties: 1 }),
    sensitiveKeys: Object.keys(sensitive),
    publicKeys: ['id', 'uid', 'createdAt', 'updatedAt', ...Object.keys(d.properties)],
  })
}

function optionalAll(props: TProperties): TProperties {
  return Object.fromEntries(Object.entries(props).map(([k, s]) => [k, Type.Optional(s as TSchema)]))
}
