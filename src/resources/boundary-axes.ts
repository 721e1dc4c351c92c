// Boundary axes: the lists a boundary is made of (`sections`, `entryIds`, `productIds`). A
// family whose records others are bounded by declares the axis (`boundaryAxis`); families
// declare which axes place their records inside (`readBoundary`). Everything else (workflow
// and credential boundary schemas, read conditions, the control plane's checks, panel
// fields, CLI flags) is derived from the registry's axes, so a new axis is a declaration.
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import type { BoundaryAxisDeclaration, Resource } from './declare.js'
import type { BoundaryValues } from '../kernel/caller.js'

export interface BoundaryAxis extends BoundaryAxisDeclaration {
  /** The family listed (`products`): CLI flags are `--boundary-<type>`, summaries say `products 3, 4`. */
  readonly type: string
  readonly values: 'id' | 'text'
  /** Form label: `Product ids`, `Sections`. */
  readonly label: string
}


const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/**
 * The axes the families declare. Broad axes (text keys such as section handles) come before
 * id lists, then by name, so forms and summaries keep one order whatever the families' order.
 */
export function boundaryAxesOf(resources: readonly Resource[]): BoundaryAxis[] {
  const axes = resources.flatMap((r): BoundaryAxis[] => r.boundaryAxis ? [{
    ...r.boundaryAxis, type: r.type, values: r.boundaryAxis.key === 'id' ? 'id' : 'text',
    label: r.boundaryAxis.key === 'id' ? `${capital(r.boundaryAxis.noun)} ids` : capital(r.type),
  }] : [])
  const rank = (a: BoundaryAxis) => (a.values === 'text' ? 0 : 1)
  return axes.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name))
}

/** One axis's values on input: ids from 1, or non-empty text up to 255 characters. */
export function axisValueSchema(axis: BoundaryAxis): TSchema {
  return axis.values === 'id' ? Type.Integer({ minimum: 1 }) : Type.String({ minLength: 1, maxLength: 255 })
}

/**
 * A boundary on input: every axis optional, nothing else. `limits` caps each list (text lists
 * at 500, id lists at 5000), as workflow definitions do.
 */
export function boundaryInputSchema(axes: readonly BoundaryAxis[], opts: { limits?: boolean } = {}): TObject {
  return Type.Object(Object.fromEntries(axes.map((a) => [a.name, Type.Optional(Type.Array(axisValueSchema(a),
    opts.limits ? { maxItems: a.values === 'id' ? 5000 : 500 } : {}))])), { additionalProperties: false })
}

/** A boundary as answered: every axis present. */
export function boundaryAnswerSchema(axes: readonly BoundaryAxis[], description: string): TObject {
  return Type.Object(Object.fromEntries(axes.map((a) => [a.name, Type.Array(a.values === 'id' ? Type.Integer() : Type.String())])),
    { additionalProperties: false, description })
}

/** Every axis present, each without repeats; a stored boundary from before an axis existed reads as naming nothing on it. */
export function fullBoundary(axes: readonly BoundaryAxis[], b: BoundaryValues): Record<string, (string | number)[]> {
  return Object.fromEntries(axes.map((a) => [a.name, [...new Set(b[a.name] ?? [])]]))
}

/** How many values a boundary names over all axes. */
export function boundarySize(b: BoundaryValues): number {
  return Object.values(b).reduce((n, values) => n + (values?.length ?? 0), 0)
}

/** `sections news; products 3` (axes without values left out). */
export function describeBoundary(axes: readonly BoundaryAxis[], b: BoundaryValues): string {
  return axes.filter((a) => (b[a.name] ?? []).length > 0).map((a) => `${a.type} ${(b[a.name] ?? []).join(', ')}`).join('; ')
}

/** The axes in words, for messages: `section, entry id or product id`. */
export function axesInWords(axes: readonly BoundaryAxis[]): string {
  const words = axes.map((a) => (a.values === 'id' ? `${a.noun} id` : a.noun))
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`
}
