// The inputs of the record operations, derived from each family's declaration: list
// parameters (paging, `fields`, `filter`, status, sort and the family's own) and detail
// selectors. The machine API validates query strings against them, the CLI and MCP their
// own parsed input, so every surface accepts the same values.
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Resource } from '../resources/index.js'
import { invalidMany } from '../kernel/errors.js'
import { schemaProblems } from '../store/validation.js'
import { BOOLEAN_SPELLINGS } from '../kernel/booleans.js'

const BooleanParam = (description: string) =>
  Type.Union(BOOLEAN_SPELLINGS.map((v) => Type.Literal(v)), { description })

/** Parameters every list endpoint takes. */
export const commonListParams = {
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1..200' }),
  cursor: Type.String({ minLength: 1, maxLength: 2048, description: 'pagination.nextCursor of the previous page' }),
  updatedSince: Type.String({ format: 'date-time', description: 'Only items with updatedAt >= this; incremental mode' }),
  fields: Type.String({ minLength: 1, maxLength: 4000, description: 'Comma-separated dot paths to return' }),
  filter: Type.String({ minLength: 1, maxLength: 8000, description: 'Comma-separated path:value expressions; ~ contains, * wildcard' }),
}

export function listQuerySchema(r: Resource): TObject {
  const props: Record<string, TSchema> = { ...commonListParams }
  if (r.status) {
    props.status = Type.Union([...r.status.values, 'all'].map((v) => Type.Literal(v)), {
      description: r.status.default ? `Default ${r.status.default}; all removes the status filter` : 'Status filter',
    })
  }
  if (r.sort) {
    props.sort = Type.Union(r.sort.allowed.flatMap((k) => [Type.Literal(k), Type.Literal('-' + k)]), {
      description: 'Sort key; a leading - reverses',
    })
  }
  for (const [name, p] of Object.entries(r.listParams ?? {})) {
    switch (p.kind) {
      case 'equals': props[name] = p.type === 'integer' ? Type.Integer({ minimum: 1 }) : equalsText(r, p.column); break
      case 'search': props[name] = Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive contains' }); break
      case 'arrayContains': props[name] = Type.String({ minLength: 1, maxLength: 255 }); break
      case 'withinDays': props[name] = Type.Integer({ minimum: 1, maximum: 3650, description: p.description ?? 'Only the last N days' }); break
      case 'booleanWhere': props[name] = BooleanParam(p.description); break
      case 'booleanColumn': props[name] = BooleanParam(p.description); break
      // No `default` keyword: validation would fill it in, and the value counts only with
      // the boolean parameter that reads it (lowStockThreshold with lowStock=true).
      case 'integer': props[name] = Type.Integer({ minimum: p.min, description: [`Default ${p.default}`, ...readersOf(r, name).map((b) => `only with ${b}=true`)].join('; ') }); break
    }
  }
  return Type.Object(optional(props), { additionalProperties: false })
}

/**
 * A text parameter compared with an enumerated property (an asset's `kind`) takes only that
 * property's values, so an unknown one is a 400 listing them rather than an empty page.
 */
function equalsText(r: Resource, column: string): TSchema {
  const values = literalValues(r.properties[column] ?? r.sensitive?.[column])
  return values ? Type.Union(values.map((v) => Type.Literal(v))) : Type.String({ minLength: 1, maxLength: 255 })
}

/** The string values of an enumeration (a union of literals, null left out), or undefined. */
export function literalValues(schema: TSchema | undefined): string[] | undefined {
  const branches = ((schema?.anyOf ?? []) as TSchema[]).filter((b) => b.type !== 'null')
  return branches.length > 0 && branches.every((b) => typeof b.const === 'string') ? branches.map((b) => b.const as string) : undefined
}

/** The boolean parameters that read integer parameter `name` (`lowStock` reads `lowStockThreshold`). */
export function readersOf(r: Resource, name: string): string[] {
  return Object.entries(r.listParams ?? {}).filter(([, p]) => p.kind === 'booleanWhere' && p.where.some((w) => w.param === name)).map(([b]) => b)
}

export function showQuerySchema(r: Resource): TObject {
  const props: Record<string, TSchema> = { fields: commonListParams.fields }
  for (const s of [...(r.selectors ?? []), ...(r.selectorFilters ?? [])]) {
    props[s.name] = s.type === 'integer' ? Type.Integer({ minimum: 1 }) : Type.String({ minLength: 1, maxLength: 255 })
  }
  return Type.Object(optional(props), { additionalProperties: false })
}

function optional(props: Record<string, TSchema>): Record<string, TSchema> {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)]))
}

/**
 * Reads text input (command-line options) as an operation's input: numbers and booleans are
 * converted where the schema wants them, like a query string, and every problem is named
 * with `nameOf(param)` (the CLI names its flags).
 */
export function readTextInput(schema: TObject, raw: Readonly<Record<string, string>>, nameOf: (param: string) => string): Record<string, unknown> {
  const value = Value.Convert(schema, { ...raw }) as Record<string, unknown>
  const problems = schemaProblems(schema, value)
  if (problems.length > 0) throw invalidMany(problems.map((p) => ({ param: nameOf(p.param), problem: enumProblem(schema, p.param) ?? p.problem })))
  return value
}

/** "must be one of: …" for a parameter whose schema is a union of literals. */
function enumProblem(schema: TObject, param: string): string | undefined {
  const literals = ((schema.properties[param]?.anyOf ?? []) as TSchema[]).map((s) => s.const)
  return literals.length > 0 && literals.every((l) => l !== undefined) ? `must be one of: ${literals.join(', ')}` : undefined
}
