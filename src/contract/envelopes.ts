// Schemas of the envelope around every machine-API answer (DESIGN §4), shared by the OpenAPI
// document and the schema catalog.
import { Type } from '@sinclair/typebox'
import { errorCatalog } from '../kernel/errors.js'

export const PaginationSchema = Type.Object({
  hasMore: Type.Boolean({ description: 'Whether another page follows' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null when hasMore is false (the change feed always gives one to poll from)' }),
}, { additionalProperties: false })

export const ListMetaSchema = Type.Object({
  mode: Type.Union([Type.Literal('full'), Type.Literal('incremental')], { description: 'How the walk reads: incremental when it was started with updatedSince (its cursors keep that, so every page of it says so), full otherwise. On /changes: incremental from a position (after, a cursor or updatedSince), full from the start of the log' }),
}, { additionalProperties: true, description: 'List metadata; some lists add their own keys (the change feed adds types)' })

export const ErrorDetailSchema = Type.Object({
  param: Type.String({ description: 'The query parameter or body property at fault; (query) or (body) for the whole' }),
  problem: Type.String(),
}, { additionalProperties: false })

export const ErrorEnvelopeSchema = Type.Object({
  error: Type.Object({
    code: Type.Union(Object.keys(errorCatalog).map((c) => Type.Literal(c))),
    message: Type.String(),
    details: Type.Optional(Type.Array(ErrorDetailSchema)),
  }, { additionalProperties: false }),
  requestId: Type.String(),
}, { additionalProperties: false, description: 'Every error: no ok field; requestId equals the X-Request-Id header' })
