// Commerce families: products and variants (stock derived from variants), subscriptions,
// inventory locations and transfers, donations, orders.
import { Type } from '@sinclair/typebox'
import { declareResource } from './declare.js'
import { orderHooks, productHooks, variantHooks } from './commerce-hooks.js'
import { CustomFields, Handle, Id, Money, Nullable, NullableDateTime, PUBLISH_STATUSES, Slug, StringEnum, Text } from './types.js'

/**
 * Order statuses: `cart` (not placed yet; isCompleted false), `pending` (placed, awaiting
 * payment), `processing`, `shipped`, `completed`, `cancelled`, `refunded`.
 */
export const ORDER_STATUSES = ['cart', 'pending', 'processing', 'shipped', 'completed', 'cancelled', 'refunded'] as const

const VariantSummary = Type.Object({
  id: Id(), sku: Text(), title: Text(), price: Money(), stock: Type.Integer(), hasUnlimitedStock: Type.Boolean(),
  isAvailable: Type.Boolean(), isDefault: Type.Boolean(),
}, { additionalProperties: false })

export const products = declareResource({
  type: 'products', changeType: 'products', eventType: 'product', table: 'products', summary: 'Products',
  group: 'commerce', scope: 'products:read', hooks: productHooks, readBoundary: { productIds: 'id' },
  boundaryAxis: { name: 'productIds', key: 'id', noun: 'product', example: '3, 4' },
  columns: {
    type: { type: 'text' }, title: { type: 'text' }, slug: { type: 'text', unique: true }, status: { type: 'text' },
    hasUnlimitedStock: { type: 'boolean' }, totalStock: { type: 'integer' }, defaultSku: { type: 'text' },
  },
  searchColumns: ['title', 'slug', 'defaultSku'],
  status: { values: PUBLISH_STATUSES, default: 'live' },
  sort: { allowed: ['updatedAt', 'createdAt', 'title'] },
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'slug', column: 'slug', type: 'text' }],
  listParams: {
    q: { kind: 'search' },
    lowStock: {
      kind: 'booleanWhere', fullSyncOnly: true,
      description: 'Only products with limited stock at or under lowStockThreshold (full-sync mode only)',
      where: [{ column: 'hasUnlimitedStock', op: '=', value: false }, { column: 'totalStock', op: '<=', param: 'lowStockThreshold' }],
    },
    lowStockThreshold: { kind: 'integer', min: 0, default: 10 },
  },
  properties: {
    type: Handle(),
    title: Text(),
    slug: Slug(),
    status: StringEnum(PUBLISH_STATUSES),
    postDate: NullableDateTime(),
    expiryDate: NullableDateTime(),
    defaultSku: Nullable(Text()),
    defaultPrice: Nullable(Money()),
    hasUnlimitedStock: Type.Boolean(),
    totalStock: Nullable(Type.Integer()),
    variants: Type.Array(VariantSummary),
    fields: CustomFields(),
  },
  computed: ['defaultSku', 'defaultPrice', 'hasUnlimitedStock', 'totalStock', 'variants'],
  required: ['type', 'title', 'slug'],
})

export const variants = declareResource({
  type: 'variants', changeType: 'variants', table: 'variants', summary: 'Product variants',
  group: 'commerce', scope: 'variants:read', hooks: variantHooks, readBoundary: { productIds: 'productId' },
  columns: {
    productId: { type: 'integer' }, sku: { type: 'text', unique: true }, title: { type: 'text' }, status: { type: 'text' },
  },
  searchColumns: ['sku', 'title'],
  status: { values: PUBLISH_STATUSES, default: 'live' },
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'sku', column: 'sku', type: 'text' }],
  selectorFilters: [{ name: 'productId', column: 'productId', type: 'integer' }],
  listParams: {
    q: { kind: 'search' },
    sku: { kind: 'equals', column: 'sku', type: 'text' },
    productId: { kind: 'equals', column: 'productId', type: 'integer' },
  },
  properties: {
    productId: Id(),
    sku: Type.String({ minLength: 1, maxLength: 64 }),
    title: Text(),
    price: Money(),
    status: StringEnum(PUBLISH_STATUSES),
    stock: Type.Integer(),
    hasUnlimitedStock: Type.Boolean(),
    isAvailable: Type.Boolean(),
    isDefault: Type.Boolean(),
  },
  computed: ['isAvailable'],
  required: ['productId', 'sku', 'title', 'price'],
  references: { productId: { type: 'products' } },
})

export const SUBSCRIPTION_STATUSES = ['active', 'expired', 'suspended', 'canceled'] as const

export const subscriptions = declareResource({
  type: 'subscriptions', changeType: 'subscriptions', table: 'subscriptions', summary: 'Subscriptions',
  group: 'commerce', scope: 'subscriptions:read',
  columns: {
    reference: { type: 'text', unique: true }, userId: { type: 'integer' }, planId: { type: 'integer' }, status: { type: 'text' },
  },
  searchColumns: ['reference'],
  status: { values: SUBSCRIPTION_STATUSES, default: 'active' },
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'reference', column: 'reference', type: 'text' }],
  listParams: {
    q: { kind: 'search' },
    reference: { kind: 'equals', column: 'reference', type: 'text' },
    userId: { kind: 'equals', column: 'userId', type: 'integer' },
    planId: { kind: 'equals', column: 'planId', type: 'integer' },
  },
  properties: {
    reference: Type.String({ minLength: 1, maxLength: 64 }),
    userId: Id(),
    planId: Id(),
    status: StringEnum(SUBSCRIPTION_STATUSES),
    trialDays: Type.Integer({ minimum: 0 }),
    nextPaymentDate: NullableDateTime(),
    dateCanceled: NullableDateTime(),
    dateExpired: NullableDateTime(),
    dateSuspended: NullableDateTime(),
  },
  required: ['reference', 'userId', 'planId'],
})

/** Inventory locations: internal, referenced by transfers. */
export const locations = declareResource({
  type: 'locations', changeType: 'locations', table: 'locations', summary: 'Inventory locations (internal)',
  columns: { handle: { type: 'text', unique: true }, name: { type: 'text' } },
  properties: { handle: Handle(), name: Text() },
  required: ['handle', 'name'],
})

export const TRANSFER_STATUSES = ['draft', 'pending', 'partial', 'received'] as const

export const transfers = declareResource({
  type: 'transfers', changeType: 'transfers', table: 'transfers', summary: 'Inventory transfers between locations',
  group: 'commerce', scope: 'transfers:read',
  columns: {
    status: { type: 'text' }, originLocationId: { type: 'integer' }, destinationLocationId: { type: 'integer' },
    reference: { type: 'text' },
  },
  searchColumns: ['reference'],
  status: { values: TRANSFER_STATUSES },
  selectors: [{ name: 'id', column: 'id', type: 'integer' }],
  listParams: {
    q: { kind: 'search' },
    originLocationId: { kind: 'equals', column: 'originLocationId', type: 'integer' },
    destinationLocationId: { kind: 'equals', column: 'destinationLocationId', type: 'integer' },
  },
  properties: {
    reference: Nullable(Text()),
    status: StringEnum(TRANSFER_STATUSES),
    originLocationId: Id(),
    destinationLocationId: Id(),
    lines: Type.Array(Type.Object({
      sku: Text(), quantity: Type.Integer({ minimum: 1 }), accepted: Type.Integer({ minimum: 0 }), rejected: Type.Integer({ minimum: 0 }),
    }, { additionalProperties: false })),
  },
  required: ['originLocationId', 'destinationLocationId'],
  references: { originLocationId: { type: 'locations' }, destinationLocationId: { type: 'locations' } },
})

export const donations = declareResource({
  type: 'donations', changeType: 'donations', table: 'donations', summary: 'Donation items',
  group: 'commerce', scope: 'donations:read',
  columns: { sku: { type: 'text', unique: true }, title: { type: 'text' }, status: { type: 'text' } },
  searchColumns: ['sku', 'title'],
  status: { values: PUBLISH_STATUSES, default: 'live' },
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'sku', column: 'sku', type: 'text' }],
  listParams: { q: { kind: 'search' }, sku: { kind: 'equals', column: 'sku', type: 'text' } },
  properties: {
    sku: Type.String({ minLength: 1, maxLength: 64 }),
    title: Text(),
    status: StringEnum(PUBLISH_STATUSES),
    availableForPurchase: Type.Boolean(),
  },
  required: ['sku', 'title'],
})

const OrderAddress = Type.Object({
  fullName: Nullable(Text()), addressLine1: Nullable(Text()), addressLine2: Nullable(Text()), locality: Nullable(Text()),
  postalCode: Nullable(Text(32)), countryCode: Nullable(Type.String({ pattern: '^[A-Z]{2}$' })),
}, { additionalProperties: false })

export const orders = declareResource({
  type: 'orders', changeType: 'orders', eventType: 'order', table: 'orders', summary: 'Orders',
  group: 'commerce', hooks: orderHooks, scope: 'orders:read', sensitiveScope: 'orders:read_sensitive',
  columns: {
    number: { type: 'text', unique: true }, reference: { type: 'text' }, status: { type: 'text' },
    dateOrdered: { type: 'timestamp' }, isCompleted: { type: 'boolean' },
  },
  searchColumns: ['number', 'reference'],
  // No default status: without one, every placed order is listed (carts are left out by isCompleted).
  status: { values: ORDER_STATUSES },
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'number', column: 'number', type: 'text' }],
  listParams: {
    isCompleted: {
      kind: 'booleanColumn', column: 'isCompleted', default: true,
      description: 'false: only carts (orders not placed yet); true: only placed orders. Without it and without status, carts are left out',
    },
    lastDays: {
      kind: 'withinDays', column: 'dateOrdered',
      description: 'Only orders placed in the last N days: dateOrdered within N × 24 hours before now (whole days, 1..3650); carts have no dateOrdered',
    },
  },
  properties: {
    number: Type.String({ pattern: '^[0-9a-f]{32}$' }),
    reference: Nullable(Text()),
    status: StringEnum(ORDER_STATUSES),
    isCompleted: Type.Boolean(),
    dateOrdered: NullableDateTime(),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    itemTotal: Money(),
    totalPrice: Money(),
    totalPaid: Money(),
    totalRefunded: Money(),
    paidStatus: StringEnum(['unpaid', 'partial', 'paid', 'overPaid', 'refunded']),
    lineItems: Type.Array(Type.Object({
      id: Id(), sku: Text(), description: Text(), qty: Type.Integer({ minimum: 1 }), price: Money(), subtotal: Money(),
      variantId: Nullable(Id()),
    }, { additionalProperties: false })),
    fields: CustomFields(),
  },
  sensitive: {
    email: Nullable(Type.String({ maxLength: 255 })),
    billingAddress: Nullable(OrderAddress),
    shippingAddress: Nullable(OrderAddress),
    customer: Nullable(Type.Object({ id: Nullable(Id()), email: Nullable(Text()), fullName: Nullable(Text()) }, { additionalProperties: false })),
  },
  computed: ['itemTotal', 'paidStatus'],
  required: ['number', 'currency'],
})

