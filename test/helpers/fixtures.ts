// A small, linked data set with at least one record of every family, for API tests.
import type { ContentStore } from '../../src/store/content-store.js'

export interface SmallCatalog {
  readonly ids: Readonly<Record<string, number>>
}

export async function seedSmallCatalog(store: ContentStore): Promise<SmallCatalog> {
  return store.transaction(async (w) => {
    const ids: Record<string, number> = {}
    const put = async (type: string, record: Record<string, unknown>) => {
      const doc = await w.create(type, record)
      ids[type] ??= doc.id as number
      return doc
    }
    await put('sections', { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }] })
    const user = await put('users', { username: 'ada', fullName: 'Ada Lovelace', email: 'ada@example.com', groups: ['editors', 'authors'] })
    await put('users', { username: 'bob', fullName: 'Bob', email: 'bob@example.com', status: 'suspended', groups: ['customers'] })
    const entry = await put('entries', { section: 'news', type: 'article', title: 'Hello world', slug: 'hello-world', authorId: user.id, fields: { body: 'First post', topics: ['intro', 'news'] } })
    await put('entries', { section: 'news', type: 'article', title: 'Draft thoughts', slug: 'draft-thoughts', status: 'pending', fields: { body: 'Not yet' } })
    await put('assets', { volume: 'images', folder: '/', filename: 'logo.png', kind: 'image', mimeType: 'image/png', size: 1234, width: 64, height: 64 })
    const cat = await put('categories', { group: 'topics', title: 'Science', slug: 'science' })
    await put('categories', { group: 'topics', title: 'Physics', slug: 'physics', parentId: cat.id })
    await put('tags', { group: 'default', title: 'Featured', slug: 'featured' })
    await put('global-sets', { handle: 'footer', name: 'Footer', fields: { copyright: '© Gatehouse' } })
    await put('content-blocks', { ownerId: entry.id, fieldId: 1, type: 'text', sortOrder: 0, fields: { text: 'Block' } })
    await put('addresses', { ownerId: user.id, title: 'Home', countryCode: 'GB', locality: 'London', postalCode: 'N1 9GU', fullName: 'Ada Lovelace', addressLine1: '12 Secret Street', phone: '+44 20 0000' })
    const product = await put('products', { type: 'shirt', title: 'Blue shirt', slug: 'blue-shirt' })
    await put('variants', { productId: product.id, sku: 'BLUE-S', title: 'Small', price: 20, stock: 3, isDefault: true })
    await put('variants', { productId: product.id, sku: 'BLUE-M', title: 'Medium', price: 22, stock: 0 })
    const p2 = await w.create('products', { type: 'shirt', title: 'Gift card', slug: 'gift-card' })
    await w.create('variants', { productId: p2.id, sku: 'GIFT', title: 'Gift', price: 50, hasUnlimitedStock: true })
    await put('subscriptions', { reference: 'SUB-1', userId: user.id, planId: 1, trialDays: 14 })
    const a = await put('locations', { handle: 'warehouse', name: 'Warehouse' })
    const b = await w.create('locations', { handle: 'store', name: 'Store' })
    await put('transfers', { reference: 'TR-1', status: 'pending', originLocationId: a.id, destinationLocationId: b.id, lines: [{ sku: 'BLUE-S', quantity: 5, accepted: 0, rejected: 0 }] })
    await put('donations', { sku: 'DONATE', title: 'Donation', availableForPurchase: true })
    await put('orders', {
      number: 'a'.repeat(32), reference: 'ORD-1', status: 'processing', isCompleted: true, dateOrdered: new Date().toISOString(),
      currency: 'EUR', totalPrice: 42, totalPaid: 42,
      lineItems: [{ id: 1, sku: 'BLUE-S', description: 'Blue shirt S', qty: 2, price: 21, subtotal: 42, variantId: null }],
      email: 'buyer@example.com', customer: { id: user.id as number, email: 'buyer@example.com', fullName: 'Buyer' },
      billingAddress: { fullName: 'Buyer', addressLine1: '1 Private Road', addressLine2: null, locality: 'Paris', postalCode: '75001', countryCode: 'FR' },
      shippingAddress: null,
    })
    return { ids }
  })
}
