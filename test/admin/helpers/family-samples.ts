// Realistic create and update bodies for every resource family, for round-trip tests.
// `prerequisites` makes the records these bodies point at (a section, an author, an
// entry, a product, two inventory locations).
import type { AdminClient } from './admin-client.js'
import { dataOf } from './admin-client.js'

export interface Prerequisites {
  readonly section: string
  readonly userId: number
  readonly entryId: number
  readonly productId: number
  readonly originId: number
  readonly destinationId: number
}

export interface FamilySample {
  readonly create: Record<string, unknown>
  readonly patch: Record<string, unknown>
  /** Values the write service derives, after create and after the patch. */
  readonly derivedAfterCreate?: Record<string, unknown>
  readonly derivedAfterPatch?: Record<string, unknown>
}

export async function prerequisites(admin: AdminClient): Promise<Prerequisites> {
  await dataOf(await admin.post('/sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] }), 201)
  const user = dataOf(await admin.post('/users', { username: 'grace', fullName: 'Grace Hopper', email: 'grace@example.com', groups: ['authors'] }), 201)
  const entry = dataOf(await admin.post('/entries', { section: 'news', type: 'article', title: 'Compilers at sea', slug: 'compilers-at-sea', authorId: user.id }), 201)
  const product = dataOf(await admin.post('/products', { type: 'apparel', title: 'Harbour Hoodie', slug: 'harbour-hoodie' }), 201)
  const origin = dataOf(await admin.post('/locations', { handle: 'dock-a', name: 'Dock A' }), 201)
  const destination = dataOf(await admin.post('/locations', { handle: 'store-1', name: 'City store' }), 201)
  return { section: 'news', userId: user.id, entryId: entry.id, productId: product.id, originId: origin.id, destinationId: destination.id }
}

export function familySamples(p: Prerequisites): Record<string, FamilySample> {
  return {
    sections: {
      create: { handle: 'guides', name: 'Guides', type: 'structure', entryTypes: [{ handle: 'guide', name: 'Guide' }] },
      patch: { name: 'How-to guides', entryTypes: [{ handle: 'guide', name: 'Guide' }, { handle: 'faq', name: 'FAQ' }] },
    },
    entries: {
      create: {
        section: p.section, type: 'article', title: 'Spring collection is here', slug: 'spring-collection', status: 'live',
        postDate: '2025-03-01T09:00:00.000Z', expiryDate: null, authorId: p.userId, url: 'https://shop.example/news/spring-collection',
        fields: { summary: 'Twelve new pieces.', body: '<p>Linen, hemp and recycled wool.</p>', featured: true },
      },
      patch: { title: 'Spring collection: now in stores', status: 'disabled', fields: { summary: 'Twelve new pieces, in stores.', featured: false } },
    },
    'entry-drafts': {
      create: { entryId: p.entryId, name: 'Copy edit', section: p.section, type: 'article', title: 'Compilers at sea (edit)', slug: 'compilers-at-sea', fields: { body: 'Tightened intro.' }, creatorId: 'cred_editor' },
      patch: { title: 'Compilers at sea, revised', fields: { body: 'Tightened intro and outro.' } },
    },
    assets: {
      create: { volume: 'images', folder: 'products/2025', filename: 'hoodie-front.jpg', kind: 'image', mimeType: 'image/jpeg', size: 482113, width: 2000, height: 2400, alt: 'Hoodie, front', url: 'https://cdn.example/images/products/2025/hoodie-front.jpg' },
      patch: { alt: 'Harbour Hoodie in navy, front view', width: 1600, height: 1920, size: 301877 },
    },
    categories: {
      create: { group: 'departments', title: 'Outerwear', slug: 'outerwear' },
      patch: { title: 'Outerwear & jackets' },
      derivedAfterCreate: { level: 1, parentId: null },
      derivedAfterPatch: { level: 1 },
    },
    tags: {
      create: { group: 'materials', title: 'Organic cotton', slug: 'organic-cotton' },
      patch: { title: 'Organic cotton (GOTS)', slug: 'organic-cotton-gots' },
    },
    'global-sets': {
      create: { handle: 'siteFooter', name: 'Site footer', fields: { copyright: '© 2025 Harbour Goods', links: [{ label: 'Returns', url: '/returns' }] } },
      patch: { fields: { copyright: '© 2025–2026 Harbour Goods', links: [] } },
    },
    'content-blocks': {
      create: { ownerId: p.entryId, fieldId: 14, type: 'pullQuote', sortOrder: 2, fields: { quote: 'It is easier to ask forgiveness.', attribution: 'G. Hopper' } },
      patch: { sortOrder: 0, fields: { quote: 'It is easier to ask forgiveness than it is to get permission.', attribution: 'Grace Hopper' } },
    },
    users: {
      create: { username: 'ada.l', fullName: 'Ada Lovelace', status: 'pending', groups: ['editors', 'reviewers'], lastLoginAt: null, email: 'ada@example.com' },
      patch: { status: 'active', lastLoginAt: '2025-04-02T08:15:00.000Z', email: 'ada.lovelace@example.org' },
    },
    addresses: {
      create: {
        ownerId: p.userId, title: 'Home', countryCode: 'GB', administrativeArea: null, locality: 'London', postalCode: 'N1 9GU',
        fullName: 'Grace Hopper', addressLine1: '12 Canal Walk', addressLine2: 'Flat 3', addressLine3: null, organization: null, phone: '+44 20 7946 0000',
      },
      patch: { title: 'Office', addressLine1: '1 Dock Road', organization: 'Harbour Goods Ltd', postalCode: 'E14 5AB' },
    },
    products: {
      create: { type: 'apparel', title: 'Deck Shoes', slug: 'deck-shoes', status: 'pending', postDate: '2025-05-01T00:00:00.000Z', expiryDate: null, fields: { material: 'canvas' } },
      patch: { status: 'live', title: 'Canvas Deck Shoes' },
      // No variants yet: nothing in stock, no default.
      derivedAfterCreate: { totalStock: 0, hasUnlimitedStock: false, defaultSku: null, defaultPrice: null, variants: [] },
      derivedAfterPatch: { totalStock: 0, hasUnlimitedStock: false, variants: [] },
    },
    variants: {
      create: { productId: p.productId, sku: 'HH-NAVY-M', title: 'Navy / M', price: 79.5, status: 'live', stock: 12, hasUnlimitedStock: false, isDefault: true },
      patch: { stock: 0, price: 69 },
      derivedAfterCreate: { isAvailable: true },
      derivedAfterPatch: { isAvailable: false },
    },
    subscriptions: {
      create: { reference: 'SUB-2025-0042', userId: p.userId, planId: 3, status: 'active', trialDays: 14, nextPaymentDate: '2025-06-01T00:00:00.000Z', dateCanceled: null, dateExpired: null, dateSuspended: null },
      patch: { status: 'canceled', dateCanceled: '2025-05-20T12:00:00.000Z', nextPaymentDate: null },
    },
    locations: {
      create: { handle: 'warehouse-north', name: 'North warehouse' },
      patch: { name: 'North warehouse (Leeds)' },
    },
    transfers: {
      create: { reference: 'TR-0007', status: 'pending', originLocationId: p.originId, destinationLocationId: p.destinationId, lines: [{ sku: 'HH-NAVY-M', quantity: 10, accepted: 0, rejected: 0 }] },
      patch: { status: 'received', lines: [{ sku: 'HH-NAVY-M', quantity: 10, accepted: 9, rejected: 1 }] },
    },
    donations: {
      create: { sku: 'DONATE-REEF', title: 'Reef restoration donation', status: 'live', availableForPurchase: true },
      patch: { availableForPurchase: false, title: 'Reef restoration (closed)' },
    },
    orders: {
      create: {
        number: 'a3f1c2d4e5b60718293a4b5c6d7e8f90', reference: 'HG-10421', status: 'processing', isCompleted: true,
        dateOrdered: '2025-04-11T14:03:00.000Z', currency: 'GBP', totalPrice: 159, totalPaid: 159, totalRefunded: 0,
        lineItems: [
          { id: 1, sku: 'HH-NAVY-M', description: 'Harbour Hoodie, Navy / M', qty: 1, price: 79.5, subtotal: 79.5, variantId: null },
          { id: 2, sku: 'HH-NAVY-L', description: 'Harbour Hoodie, Navy / L', qty: 1, price: 79.5, subtotal: 79.5, variantId: null },
        ],
        fields: { giftNote: 'Happy birthday' },
        email: 'grace@example.com',
        billingAddress: { fullName: 'Grace Hopper', addressLine1: '12 Canal Walk', addressLine2: null, locality: 'London', postalCode: 'N1 9GU', countryCode: 'GB' },
        shippingAddress: null,
        customer: { id: p.userId, email: 'grace@example.com', fullName: 'Grace Hopper' },
      },
      patch: { status: 'refunded', totalRefunded: 159 },
      derivedAfterCreate: { itemTotal: 159, paidStatus: 'paid' },
      derivedAfterPatch: { itemTotal: 159, paidStatus: 'refunded' },
    },
  }
}
