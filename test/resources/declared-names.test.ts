// A declaration whose type, feed type, table or column name is not a plain name is refused
// when it is declared, with an error naming it (src/resources/declared-names.ts), before any
// table or route is made from it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from '@sinclair/typebox'
import { declareResource, type ResourceDeclaration } from '../../src/resources/declare.js'
import { allResources } from '../../src/resources/index.js'

const coupons: ResourceDeclaration = {
  type: 'coupons', changeType: 'coupons', table: 'coupons', summary: 'Discount coupons',
  columns: { code: { type: 'text', unique: true }, percentOff: { type: 'integer' } },
  properties: { code: Type.String(), percentOff: Type.Integer(), 'percent off': Type.Integer() },
}

test('a table name that is not a plain identifier is refused, naming it', () => {
  assert.throws(() => declareResource({ ...coupons, table: 'coupons"; DROP TABLE entries; --' }),
    { message: 'coupons: table "coupons\\"; DROP TABLE entries; --" is not a plain identifier (letters, digits and _, not starting with a digit)' })
  assert.throws(() => declareResource({ ...coupons, table: '1coupons' }), /coupons: table "1coupons" is not a plain identifier/)
  assert.throws(() => declareResource({ ...coupons, table: 'shop.coupons' }), /coupons: table "shop\.coupons" is not a plain identifier/)
})

test('a column name that is not a plain identifier is refused, naming it', () => {
  assert.throws(() => declareResource({ ...coupons, columns: { ...coupons.columns, 'percent off': { type: 'integer' } } }),
    /coupons: column "percent off" is not a plain identifier/)
})

test('a type or feed type that is not a plain name is refused, naming it', () => {
  assert.throws(() => declareResource({ ...coupons, type: 'coupons/all' }), /resource type "coupons\/all" is not a plain name/)
  assert.throws(() => declareResource({ ...coupons, type: '' }), /resource type "" is not a plain name/)
  assert.throws(() => declareResource({ ...coupons, changeType: "coupons'" }), /coupons: changeType "coupons'" is not a plain identifier/)
})

test('plain names are accepted: camelCase columns, snake_case tables, hyphenated types', () => {
  const r = declareResource({ ...coupons, type: 'gift-coupons', changeType: 'giftcoupons', table: 'gift_coupons' })
  assert.equal(r.table, 'gift_coupons')
  assert.deepEqual(Object.keys(r.columns), ['code', 'percentOff'])
  // Every family the app ships is declared with such names (the module would not load otherwise).
  assert.ok(allResources.length > 10)
})
