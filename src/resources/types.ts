// Small schema helpers shared by the resource declarations.
import { Type, type TSchema } from '@sinclair/typebox'

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])
export const DateTime = () => Type.String({ format: 'date-time' })
export const NullableDateTime = () => Nullable(DateTime())
export const Handle = () => Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' })
export const Slug = () => Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' })
export const Text = (max = 255) => Type.String({ maxLength: max })
export const Id = () => Type.Integer({ minimum: 1 })
export const Money = () => Type.Number({ minimum: 0 })
/** Custom fields: free JSON object. */
export const CustomFields = () => Type.Record(Type.String(), Type.Unknown())

export const PUBLISH_STATUSES = ['live', 'pending', 'disabled', 'expired'] as const
export const StringEnum = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)))
