// Content families of the host CMS: sections, entries (and their drafts), assets,
// categories, tags, global sets and content blocks.
import { Type } from '@sinclair/typebox'
import { declareResource } from './declare.js'
import { categoryHooks, entryTypeHooks } from './content-hooks.js'
import { CustomFields, Handle, Id, Nullable, NullableDateTime, PUBLISH_STATUSES, Slug, StringEnum, Text } from './types.js'

export const sections = declareResource({
  type: 'sections', changeType: 'sections', table: 'sections', summary: 'Sections and their entry types',
  // The spec's /changes types have no sections: they are read through /sections only.
  group: 'content', scope: 'sections:read', changeFeed: false,
  boundaryAxis: { name: 'sections', key: 'handle', noun: 'section', example: 'blog, news' }, readBoundary: { sections: 'handle' },
  columns: { handle: { type: 'text', unique: true }, name: { type: 'text' }, type: { type: 'text' } },
  searchColumns: ['handle', 'name'],
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'handle', column: 'handle', type: 'text' }],
  listParams: { q: { kind: 'search' }, type: { kind: 'equals', column: 'type', type: 'text' } },
  properties: {
    handle: Handle(),
    name: Text(),
    type: StringEnum(['single', 'channel', 'structure']),
    entryTypes: Type.Array(Type.Object({ handle: Handle(), name: Text() }, { additionalProperties: false })),
  },
  required: ['handle', 'name', 'type'],
})

const entryProperties = {
  section: Handle(),
  type: Handle(),
  title: Text(),
  slug: Slug(),
  status: StringEnum(PUBLISH_STATUSES),
  postDate: NullableDateTime(),
  expiryDate: NullableDateTime(),
  authorId: Nullable(Id()),
  url: Nullable(Text(2048)),
  fields: CustomFields(),
}

export const entries = declareResource({
  type: 'entries', changeType: 'entries', eventType: 'entry', table: 'entries', summary: 'Entries', hooks: entryTypeHooks,
  group: 'content', scope: 'entries:read', readBoundary: { sections: 'section', entryIds: 'id' },
  boundaryAxis: { name: 'entryIds', key: 'id', noun: 'entry', example: '12, 15' },
  columns: {
    section: { type: 'text' }, type: { type: 'text' }, title: { type: 'text' },
    slug: { type: 'text', uniqueWith: ['section'] }, status: { type: 'text' }, authorId: { type: 'integer' },
  },
  searchColumns: ['title', 'slug'],
  status: { values: PUBLISH_STATUSES, default: 'live', otherStatusesScope: 'entries:read_all_statuses' },
  // Slugs are unique per section: with slug, section chooses between sections.
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'slug', column: 'slug', type: 'text' }],
  selectorFilters: [{ name: 'section', column: 'section', type: 'text' }],
  listParams: {
    section: { kind: 'equals', column: 'section', type: 'text' },
    type: { kind: 'equals', column: 'type', type: 'text' },
    search: { kind: 'search' },
    q: { kind: 'search' },
  },
  properties: entryProperties,
  required: ['section', 'type', 'title', 'slug'],
  references: { section: { type: 'sections', by: 'handle' }, authorId: { type: 'users' } },
})

/** Named drafts of entries, written only by governed actions; never served as entries. */
export const entryDrafts = declareResource({
  type: 'entry-drafts', changeType: 'entrydrafts', table: 'entry_drafts', summary: 'Drafts of entries (internal)', importable: false, hooks: entryTypeHooks,
  columns: { entryId: { type: 'integer' }, name: { type: 'text', uniqueWith: ['entryId'] } },
  properties: {
    entryId: Nullable(Id()),
    name: Text(),
    section: Handle(),
    type: Handle(),
    title: Text(),
    slug: Slug(),
    fields: CustomFields(),
    creatorId: Nullable(Text()),
  },
  required: ['name', 'section', 'type', 'title', 'slug'],
  references: { entryId: { type: 'entries' }, section: { type: 'sections', by: 'handle' } },
})

export const assets = declareResource({
  type: 'assets', changeType: 'assets', table: 'assets', summary: 'Assets (files in volumes)',
  group: 'content', scope: 'assets:read',
  columns: {
    volume: { type: 'text' }, folder: { type: 'text' }, filename: { type: 'text', uniqueWith: ['volume', 'folder'] },
    kind: { type: 'text' },
  },
  searchColumns: ['filename'],
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'filename', column: 'filename', type: 'text' }],
  selectorFilters: [{ name: 'volume', column: 'volume', type: 'text' }],
  listParams: {
    q: { kind: 'search' },
    volume: { kind: 'equals', column: 'volume', type: 'text' },
    kind: { kind: 'equals', column: 'kind', type: 'text' },
  },
  properties: {
    volume: Handle(),
    folder: Text(),
    filename: Text(),
    kind: StringEnum(['image', 'video', 'audio', 'pdf', 'text', 'other']),
    mimeType: Text(),
    size: Type.Integer({ minimum: 0 }),
    width: Nullable(Type.Integer({ minimum: 0 })),
    height: Nullable(Type.Integer({ minimum: 0 })),
    alt: Nullable(Text(1024)),
    url: Nullable(Text(2048)),
  },
  required: ['volume', 'filename', 'kind'],
})

const groupedTaxonomy = (type: 'categories' | 'tags') =>
  ({
    columns: {
      group: { type: 'text' }, title: { type: 'text' }, slug: { type: 'text', uniqueWith: ['group'] },
    },
    searchColumns: ['title', 'slug'],
    selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'slug', column: 'slug', type: 'text' }],
    selectorFilters: [{ name: 'group', column: 'group', type: 'text' }],
    listParams: { q: { kind: 'search' }, group: { kind: 'equals', column: 'group', type: 'text' } },
    group: 'content',
    scope: `${type}:read`,
    required: ['group', 'title', 'slug'],
  }) as const

export const categories = declareResource({
  type: 'categories', changeType: 'categories', table: 'categories', summary: 'Categories (hierarchical)', hooks: categoryHooks,
  ...groupedTaxonomy('categories'),
  properties: {
    group: Handle(), title: Text(), slug: Slug(), parentId: Nullable(Id()), level: Type.Integer({ minimum: 1 }),
  },
  computed: ['level'],
  references: { parentId: { type: 'categories' } },
})

export const tags = declareResource({
  type: 'tags', changeType: 'tags', table: 'tags', summary: 'Tags',
  ...groupedTaxonomy('tags'),
  properties: { group: Handle(), title: Text(), slug: Slug() },
})

export const globalSets = declareResource({
  type: 'global-sets', changeType: 'globalsets', table: 'global_sets', summary: 'Global sets',
  group: 'content', scope: 'globalsets:read',
  columns: { handle: { type: 'text', unique: true }, name: { type: 'text' } },
  searchColumns: ['handle', 'name'],
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'handle', column: 'handle', type: 'text' }],
  listParams: { q: { kind: 'search' } },
  properties: { handle: Handle(), name: Text(), fields: CustomFields() },
  required: ['handle', 'name'],
})

export const contentBlocks = declareResource({
  type: 'content-blocks', changeType: 'contentblocks', table: 'content_blocks', summary: 'Content blocks (nested in owners)',
  group: 'content', scope: 'contentblocks:read', owner: { type: 'entries', column: 'ownerId' },
  columns: { ownerId: { type: 'integer' }, fieldId: { type: 'integer' }, type: { type: 'text' } },
  searchColumns: ['type'],
  selectors: [{ name: 'id', column: 'id', type: 'integer' }, { name: 'uid', column: 'uid', type: 'text' }],
  selectorFilters: [
    { name: 'ownerId', column: 'ownerId', type: 'integer' },
    { name: 'fieldId', column: 'fieldId', type: 'integer' },
  ],
  listParams: {
    q: { kind: 'search' },
    ownerId: { kind: 'equals', column: 'ownerId', type: 'integer' },
    fieldId: { kind: 'equals', column: 'fieldId', type: 'integer' },
  },
  properties: {
    ownerId: Id(), fieldId: Id(), type: Handle(), sortOrder: Type.Integer({ minimum: 0 }), fields: CustomFields(),
  },
  required: ['ownerId', 'fieldId', 'type'],
  references: { ownerId: { type: 'entries' } },
})


