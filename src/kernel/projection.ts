// `fields`: comma-separated dot paths. A path into an array applies to each element.
import type { TSchema } from '@sinclair/typebox'
import { invalid } from './errors.js'

export type FieldTree = Map<string, FieldTree>

export const MAX_FIELDS = 50

/** Parses `fields`, checking each top-level name against `allowed`. */
export function parseFields(text: string, allowed: readonly string[], denied: ReadonlyMap<string, string> = new Map()): FieldTree {
  const paths = text.split(',').map((p) => p.trim()).filter(Boolean)
  if (paths.length === 0) throw invalid('fields', 'at least one field path is required')
  if (paths.length > MAX_FIELDS) throw invalid('fields', `at most ${MAX_FIELDS} paths`)
  const tree: FieldTree = new Map()
  for (const path of paths) {
    const parts = path.split('.')
    if (parts.some((p) => !/^[A-Za-z0-9_-]{1,64}$/.test(p))) throw invalid('fields', `"${path}" is not a dot path of field names`)
    if (denied.has(parts[0])) throw invalid('fields', `"${parts[0]}" requires scope ${denied.get(parts[0])}`)
    if (!allowed.includes(parts[0])) throw invalid('fields', `unknown field "${parts[0]}"; valid fields: ${allowed.join(', ')}`)
    let node = tree
    for (const p of parts) {
      let next = node.get(p)
      if (!next) { next = new Map(); node.set(p, next) }
      node = next
    }
  }
  // A whole field wins over paths inside it.
  const prune = (t: FieldTree, paths: readonly string[]): void => {
    for (const path of paths) {
      const parts = path.split('.')
      let node: FieldTree | undefined = t
      for (const p of parts.slice(0, -1)) node = node?.get(p)
      node?.get(parts[parts.length - 1])?.clear()
    }
  }
  prune(tree, paths)
  return tree
}

export function project(value: unknown, tree: FieldTree): unknown {
  if (tree.size === 0) return value
  if (Array.isArray(value)) return value.map((v) => project(v, tree))
  if (typeof value !== 'object' || value === null) return undefined
  const src = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const [key, sub] of tree) {
    if (!(key in src)) continue
    const v = project(src[key], sub)
    if (v !== undefined) out[key] = v
  }
  return out
}

/** Walks a schema along a path; returns where arrays start, or an error text. */
export function resolvePath(root: TSchema, path: readonly string[]): { arrayAt?: number; freeForm?: boolean } | string {
  let schema: TSchema | undefined = root
  let arrayAt: number | undefined
  for (let i = 0; i < path.length; i++) {
    schema = unwrapNullable(schema)
    if (schema?.type === 'array') {
      if (arrayAt !== undefined) return 'paths through two arrays are not supported'
      arrayAt = i
      schema = unwrapNullable(schema.items as TSchema)
    }
    if (!schema) return `unknown path`
    if (schema.type === 'object' && schema.properties) {
      schema = (schema.properties as Record<string, TSchema>)[path[i]]
      if (!schema) return `unknown field "${path.slice(0, i + 1).join('.')}"`
    } else if (schema.type === 'object' || schema.patternProperties || schema.additionalProperties) {
      // Free-form custom fields: any deeper path is allowed; its shape is unknown.
      return { arrayAt, freeForm: true }
    } else {
      return `"${path.slice(0, i).join('.')}" has no fields`
    }
  }
  schema = unwrapNullable(schema)
  if (schema?.type === 'array') {
    if (arrayAt !== undefined) return 'paths through two arrays are not supported'
    arrayAt = path.length
  }
  return { arrayAt }
}

function unwrapNullable(schema: TSchema | undefined): TSchema | undefined {
  if (!schema?.anyOf) return schema
  const nonNull = (schema.anyOf as TSchema[]).filter((s) => s.type !== 'null')
  return nonNull.length === 1 ? nonNull[0] : schema
}
