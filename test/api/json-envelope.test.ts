// A page given as its items' JSON texts reads as the same JSON whichever way it is written out.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { jsonItems, wrapItems } from '../../src/kernel/json-result.js'
import { envelopeText } from '../../src/api/machine-api.js'

// A list without a meta of its own says it was read whole (DESIGN §4: lists carry meta.mode).
test('items are wrapped in one join, for no, one and several items', () => {
  for (const items of [[], ['{"a":1}'], ['{"a":1}', '2', '"three"']]) {
    assert.equal(wrapItems('{"data":', items, '}'), `{"data":[${items.join(',')}]}`)
    const page = jsonItems(items, { pagination: { hasMore: false, nextCursor: null } })
    assert.equal(page.rawData, `[${items.join(',')}]`)
    assert.deepEqual(JSON.parse(envelopeText(page, 'req_1')), { ok: true, data: items.map((i) => JSON.parse(i)), pagination: { hasMore: false, nextCursor: null }, meta: { mode: 'full' }, requestId: 'req_1' })
  }
})

test('a page of items is not mistaken for a text answer (the handler sends results with `text` as they are)', () => {
  const page = jsonItems(['1'], { meta: { mode: 'full' } })
  assert.equal('text' in page, false)
  assert.equal('rawData' in page, true)
  assert.deepEqual(page.meta, { mode: 'full' })
})

test('the envelope written out reads as the serialised one: cursors, metas, request ids and odd paginations', () => {
  const serialised = (result: { pagination?: unknown; meta?: unknown; data?: unknown }, requestId: string) =>
    JSON.parse(JSON.stringify({ ok: true, data: result.data ?? null, ...(result.pagination ? { pagination: result.pagination } : {}), ...(result.meta ?? result.pagination ? { meta: result.meta ?? { mode: 'full' } } : {}), requestId }))
  const results = [
    { data: [1], pagination: { hasMore: true, nextCursor: 'eyJr.abc_-' } },
    { data: [1], pagination: { hasMore: false, nextCursor: null } },
    { data: [1], pagination: { hasMore: true, nextCursor: 'a"quote\\and\u2028' }, meta: { mode: 'incremental' } },
    { data: [1], pagination: { hasMore: false, nextCursor: null }, meta: { mode: 'full', extra: 1 } },
    // Not as typed, but must still be JSON: left to the serialiser.
    { data: [1], pagination: { hasMore: false } as never },
    { data: [1], pagination: { hasMore: false, nextCursor: null, total: 3 } as never },
    { data: { one: true } },
  ]
  for (const result of results) {
    for (const requestId of ['req_1', 'a.b:c-d', 'has "quotes"', '']) {
      assert.deepEqual(JSON.parse(envelopeText(result, requestId)), serialised(result, requestId), JSON.stringify({ result, requestId }))
    }
  }
})
