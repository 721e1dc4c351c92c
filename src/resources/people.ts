// People: users (behind PLUGIN_GATEHOUSE_ENABLE_USERS_API) and addresses (behind
// PLUGIN_GATEHOUSE_ENABLE_ADDRESSES_API). Personal data lives in `sensitive`.
import { Type } from '@sinclair/typebox'
import { declareResource } from './declare.js'
import { Handle, Id, Nullable, NullableDateTime, StringEnum, Text } from './types.js'

export const USER_STATUSES = ['active', 'inactive', 'pending', 'suspended', 'locked', 'credentialed'] as const

export const users = declareResource({
  type: 'users', changeType: 'users', table: 'users', summary: 'Users',
  group: 'people', scope: 'users:read', sensitiveScope: 'users:read_sensitive', flag: 'enableUsersApi',
  columns: { username: { type: 'text', unique: true }, fullName: { type: 'text' }, status: { type: 'text' } },
  searchColumns: ['username', 'fullName'],
  status: { values: USER_STATUSES, default: 'active' },
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'username', column: 'username', type: 'text' }],
  listParams: { q: { kind: 'search' }, group: { kind: 'arrayContains', path: 'groups' } },
  properties: {
    username: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._@-]+$' }),
    fullName: Nullable(Text()),
    status: StringEnum(USER_STATUSES),
    groups: Type.Array(Handle()),
    lastLoginAt: NullableDateTime(),
  },
  sensitive: { email: Type.String({ format: 'email', maxLength: 255 }) },
  required: ['username', 'email'],
})

export const addresses = declareResource({
  type: 'addresses', changeType: 'addresses', table: 'addresses', summary: 'Addresses',
  group: 'people', scope: 'addresses:read', sensitiveScope: 'addresses:read_sensitive', flag: 'enableAddressesApi',
  columns: {
    ownerId: { type: 'integer' }, title: { type: 'text' }, countryCode: { type: 'text' }, postalCode: { type: 'text' },
    locality: { type: 'text' },
  },
  searchColumns: ['title', 'locality', 'postalCode'],
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'uid', column: 'uid', type: 'text' }],
  selectorFilters: [{ name: 'ownerId', column: 'ownerId', type: 'integer' }],
  listParams: {
    q: { kind: 'search' },
    ownerId: { kind: 'equals', column: 'ownerId', type: 'integer' },
    countryCode: { kind: 'equals', column: 'countryCode', type: 'text' },
    postalCode: { kind: 'equals', column: 'postalCode', type: 'text' },
  },
  properties: {
    ownerId: Id(),
    title: Nullable(Text()),
    countryCode: Type.String({ pattern: '^[A-Z]{2}$' }),
    administrativeArea: Nullable(Text()),
    locality: Nullable(Text()),
    postalCode: Nullable(Text(32)),
  },
  sensitive: {
    fullName: Nullable(Text()),
    addressLine1: Nullable(Text()),
    addressLine2: Nullable(Text()),
    addressLine3: Nullable(Text()),
    organization: Nullable(Text()),
    phone: Nullable(Text(64)),
  },
  required: ['ownerId', 'countryCode'],
  references: { ownerId: { type: 'users' } },
})
