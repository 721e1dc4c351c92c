// String formats used by the declarations, registered once for TypeBox's checker.
// Ajv (Fastify's validator) knows the same names through ajv-formats semantics.
import { FormatRegistry } from '@sinclair/typebox'
import { isRealMoment } from '../kernel/calendar.js'

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** An RFC 3339 date-time of a day that exists (not `2030-02-31`) that JavaScript can read. */
export const isDateTime = (v: string) => DATE_TIME.test(v) && isRealMoment(v) && !Number.isNaN(Date.parse(v))

if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', isDateTime)
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => UUID.test(v))
if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (v) => EMAIL.test(v))
