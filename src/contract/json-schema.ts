// TypeBox schemas as the plain JSON Schema (2020-12 compatible) that the published contract
// carries. The same schemas validate requests, so what the contract says is what is checked.
import type { TSchema } from '@sinclair/typebox'

export type JsonSchema = { [key: string]: unknown }

/**
 * A plain copy of a TypeBox schema: JSON round-trip drops TypeBox's symbol keys, and a union
 * of string literals becomes `enum`, which documentation tools and generators render as a
 * list of values (an `anyOf` of `const`s validates the same but reads poorly).
 */
export function toJsonSchema(schema: TSchema): JsonSchema {
  return simplify(JSON.parse(JSON.stringify(schema)) as JsonSchema)
}

function simplify(node: unknown): JsonSchema {
  if (Array.isArray(node)) return node.map(simplify) as unknown as JsonSchema
  if (typeof node !== 'object' || node === null) return node as JsonSchema
  const out: JsonSchema = {}
  for (const [k, v] of Object.entries(node)) out[k] = typeof v === 'object' && v !== null ? simplify(v) : v
  const members = out.anyOf
  if (Array.isArray(members) && members.length > 0 && members.every(isStringConst)) {
    const { anyOf: _anyOf, ...rest } = out
    return { type: 'string', enum: members.map((m) => (m as JsonSchema).const), ...rest }
  }
  return out
}

const isStringConst = (m: unknown): boolean =>
  typeof m === 'object' && m !== null && typeof (m as JsonSchema).const === 'string' &&
  Object.keys(m).every((k) => k === 'const' || k === 'type')

/**
 * The schema of data after `fields` projection: every property may be left out, at any depth,
 * so no object lists required properties. Types, formats and closed objects stay as they are.
 */
export function projectable(schema: JsonSchema): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk)
    if (typeof node !== 'object' || node === null) return node
    const out: JsonSchema = {}
    for (const [k, v] of Object.entries(node)) {
      if (k === 'required' && Array.isArray(v)) continue
      out[k] = walk(v)
    }
    return out
  }
  return walk(schema) as JsonSchema
}

/** Replaces every `$ref: '#/components/schemas/X'` with X itself (self-contained schemas). */
export function inlineRefs(schema: unknown, components: Readonly<Record<string, JsonSchema>>): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk)
    if (typeof node !== 'object' || node === null) return node
    const ref = (node as JsonSchema).$ref
    if (typeof ref === 'string' && ref.startsWith(COMPONENT_PREFIX)) {
      const target = components[ref.slice(COMPONENT_PREFIX.length)]
      if (!target) throw new Error(`unknown component ${ref}`)
      return walk(target)
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]))
  }
  return walk(schema) as JsonSchema
}

export const COMPONENT_PREFIX = '#/components/schemas/'
