// The public entry for provider authors (`import { defineProvider } from 'gatehouse/providers'`):
// the interface types, helpers to declare a provider, the errors a provider may throw, and
// the filter evaluator Gatehouse itself uses. Nothing else of Gatehouse is public.
import { Type, type TUnion, type TLiteral } from '@sinclair/typebox'
import { parseBoolean } from '../kernel/booleans.js'
import { BOOLEAN_SPELLINGS } from '../kernel/booleans.js'

export type {
  FilterTest, JsonSchemaObject, JsonValue, ListPage, ListQuery, Provider, ProviderCaller, ProviderContext,
  ProviderLogger, ProviderResource, ProviderStartContext, TypedResource,
} from './provider.js'
export { defineProvider, defineResource, ProviderInputError, ProviderUnavailableError } from './provider.js'
export { matchesFilter } from '../kernel/filter.js'

/** A boolean query parameter as the machine API spells it everywhere: true,false,1,0,yes,no,on,off. */
export function booleanParam(description?: string): TUnion<TLiteral<(typeof BOOLEAN_SPELLINGS)[number]>[]> {
  return Type.Union(BOOLEAN_SPELLINGS.map((v) => Type.Literal(v)), description ? { description } : {})
}

/** The value of a `booleanParam`. */
export function parseBooleanParam(value: string): boolean {
  return parseBoolean(value) === true
}
