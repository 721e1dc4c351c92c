// Demo content: sections with entry types, assets, categories (three levels), tags, global
// sets, entries across sections with custom fields and authors, and content blocks owned
// by entries.
import type { Doc } from '../../resources/hooks.js'
import { DEMO_SITE, type DemoContext, inSlices, isoDays } from './demo-context.js'
import type { Random } from './prng.js'
import { NOUNS, PLACES, TOPICS, headline, paragraph, sentence, slugify, titleCase, words } from './words.js'

export const DEMO_SECTIONS = [
  { handle: 'news', name: 'News', type: 'channel', entryTypes: [{ handle: 'article', name: 'Article' }, { handle: 'pressRelease', name: 'Press release' }] },
  { handle: 'blog', name: 'Blog', type: 'channel', entryTypes: [{ handle: 'post', name: 'Post' }] },
  { handle: 'docs', name: 'Documentation', type: 'structure', entryTypes: [{ handle: 'guide', name: 'Guide' }, { handle: 'reference', name: 'Reference' }] },
  { handle: 'pages', name: 'Pages', type: 'structure', entryTypes: [{ handle: 'page', name: 'Page' }] },
  { handle: 'homepage', name: 'Homepage', type: 'single', entryTypes: [{ handle: 'homepage', name: 'Homepage' }] },
] as const

export interface ContentIds {
  readonly images: number[]
  readonly topicCategories: number[]
  readonly tags: number[]
}

export async function seedSections(ctx: DemoContext): Promise<void> {
  await ctx.create('sections', DEMO_SECTIONS.map((s) => ({ ...s, entryTypes: [...s.entryTypes] })))
}

interface Volume {
  readonly volume: string
  readonly folders: readonly string[]
  /** kind, file extension, MIME type */
  readonly kinds: readonly (readonly [string, string, string])[]
}

const VOLUMES: readonly Volume[] = [
  { volume: 'images', folders: ['products', 'blog', 'press', 'team'], kinds: [['image', 'jpg', 'image/jpeg'], ['image', 'png', 'image/png'], ['image', 'webp', 'image/webp']] },
  { volume: 'documents', folders: ['manuals', 'reports', 'legal'], kinds: [['pdf', 'pdf', 'application/pdf'], ['text', 'txt', 'text/plain'], ['other', 'zip', 'application/zip']] },
  { volume: 'media', folders: ['video', 'podcast'], kinds: [['video', 'mp4', 'video/mp4'], ['audio', 'mp3', 'audio/mpeg']] },
]

export async function seedAssets(ctx: DemoContext, total: number, slice: number): Promise<number[]> {
  const { random } = ctx
  const images: number[] = []
  await inSlices(total, slice, async (from, to) => {
    const inputs = []
    for (let i = from; i < to; i++) {
      // Two thirds of the assets are images: they are what entries and blocks point at.
      const v = random.chance(0.66) ? VOLUMES[0] : random.pick(VOLUMES.slice(1))
      const [kind, ext, mimeType] = random.pick(v.kinds)
      const folder = random.pick(v.folders)
      const filename = `${slugify(words(random, 1, 3))}-${i + 1}.${ext}`
      const image = kind === 'image'
      inputs.push({
        volume: v.volume, folder, filename, kind, mimeType,
        size: image ? random.int(20_000, 4_000_000) : random.int(1_000, 80_000_000),
        width: image ? random.pick([640, 800, 1200, 1600, 2400]) : kind === 'video' ? 1920 : null,
        height: image ? random.pick([480, 600, 900, 1200, 1600]) : kind === 'video' ? 1080 : null,
        alt: image ? sentence(random, 3, 8) : null,
        url: `${DEMO_SITE}/assets/${v.volume}/${folder}/${filename}`,
      })
    }
    for (const a of await ctx.create('assets', inputs)) if (a.kind === 'image') images.push(a.id as number)
  })
  return images
}

/** Categories in two groups; `topics` nests three levels, `regions` two. Parents go first. */
export async function seedCategories(ctx: DemoContext, total: number): Promise<number[]> {
  const { random } = ctx
  const topicsTotal = Math.max(3, Math.round(total * 0.7))
  const regionsTotal = Math.max(2, total - topicsTotal)
  let n = 0
  const make = (group: string, title: string, parentId: number | null) =>
    ({ group, title, slug: `${slugify(title)}-${++n}`, parentId })

  const level1 = Math.max(1, Math.round(topicsTotal * 0.2))
  const level2 = Math.max(1, Math.round(topicsTotal * 0.4))
  const top = await ctx.create('categories', Array.from({ length: level1 }, () => make('topics', titleCase(random.pick(TOPICS)), null)))
  const mid = await ctx.create('categories', Array.from({ length: level2 }, () =>
    make('topics', titleCase(`${random.pick(TOPICS)} ${words(random, 1, 1)}`), random.pick(top).id as number)))
  const leaf = await ctx.create('categories', Array.from({ length: Math.max(0, topicsTotal - level1 - level2) }, () =>
    make('topics', titleCase(words(random, 2, 3)), random.pick(mid).id as number)))

  const countries = [...new Set(PLACES.map((p) => p.countryCode))]
  const continents = await ctx.create('categories', ['Europe', 'Americas', 'Asia Pacific'].map((t) => make('regions', t, null)))
  await ctx.create('categories', Array.from({ length: Math.max(0, regionsTotal - continents.length) }, (_, i) =>
    make('regions', `Region ${countries[i % countries.length]} ${Math.floor(i / countries.length) + 1}`, random.pick(continents).id as number)))
  return [...top, ...mid, ...leaf].map((c) => c.id as number)
}

export async function seedTags(ctx: DemoContext, total: number): Promise<number[]> {
  const { random } = ctx
  const inputs = Array.from({ length: total }, (_, i) => {
    const group = i % 4 === 3 ? 'audience' : 'keywords'
    const title = group === 'audience' ? titleCase(`${random.pick(['developers', 'editors', 'buyers', 'partners'])} ${words(random, 1, 1)}`) : words(random, 1, 2)
    return { group, title, slug: `${slugify(title)}-${i + 1}` }
  })
  return (await ctx.create('tags', inputs)).filter((t) => t.group === 'keywords').map((t) => t.id as number)
}

export async function seedGlobalSets(ctx: DemoContext): Promise<void> {
  await ctx.create('global-sets', [
    { handle: 'siteInfo', name: 'Site information', fields: { siteName: 'Gatehouse Demo Store', tagline: 'Everyday goods, well made', supportEmail: 'support@example.com' } },
    { handle: 'footer', name: 'Footer', fields: { copyright: '© Gatehouse Demo', links: [{ label: 'Privacy', url: `${DEMO_SITE}/privacy` }, { label: 'Terms', url: `${DEMO_SITE}/terms` }] } },
    { handle: 'socialLinks', name: 'Social links', fields: { mastodon: 'https://mastodon.example/@gatehouse', github: 'https://github.com/example/gatehouse' } },
    { handle: 'seoDefaults', name: 'SEO defaults', fields: { titleSuffix: ' | Gatehouse Demo', robots: 'index,follow' } },
    { handle: 'announcement', name: 'Announcement bar', fields: { enabled: true, text: 'Free shipping on orders over 50', linkUrl: `${DEMO_SITE}/shipping` } },
  ])
}

export interface DemoEntryRefs extends ContentIds {
  readonly authors: readonly number[]
}

/** Entries: one homepage, then news, blog, docs and pages. Returns the ids of the entries. */
export async function seedEntries(ctx: DemoContext, total: number, slice: number, refs: DemoEntryRefs): Promise<number[]> {
  const { random } = ctx
  const ids: number[] = []
  const home = await ctx.create('entries', [{
    section: 'homepage', type: 'homepage', title: 'Home', slug: 'home', status: 'live', postDate: isoDays(ctx, -900),
    expiryDate: null, authorId: refs.authors[0] ?? null, url: `${DEMO_SITE}/`,
    fields: { headline: 'Everyday goods, well made', intro: paragraph(random, 2), heroImageId: refs.images[0] ?? null },
  }])
  ids.push(home[0].id as number)
  await inSlices(total - 1, slice, async (from, to) => {
    const inputs = []
    for (let i = from; i < to; i++) inputs.push(entryInput(ctx, i + 1, refs))
    for (const e of await ctx.create('entries', inputs)) ids.push(e.id as number)
  })
  return ids
}

function entryInput(ctx: DemoContext, n: number, refs: DemoEntryRefs): Doc {
  const { random } = ctx
  const [section, type] = random.weighted([
    [['news', 'article'], 32], [['news', 'pressRelease'], 8], [['blog', 'post'], 35], [['docs', 'guide'], 10],
    [['docs', 'reference'], 8], [['pages', 'page'], 7],
  ] as const)
  const title = section === 'docs' ? `${titleCase(random.pick(TOPICS))}: ${headline(random)}` : headline(random)
  const slug = `${slugify(title)}-${n}`
  const status = random.weighted([['live', 85], ['pending', 6], ['disabled', 5], ['expired', 4]] as const)
  const postDays = status === 'pending' ? random.int(1, 30) : -random.int(1, 1000)
  const postDate = isoDays(ctx, postDays)
  const expiryDate = status === 'expired' ? isoDays(ctx, -random.int(0, Math.max(0, -postDays - 1))) : null
  return {
    section, type, title, slug, status, postDate, expiryDate,
    authorId: refs.authors.length > 0 ? random.pick(refs.authors) : null,
    url: `${DEMO_SITE}/${section}/${slug}`,
    fields: entryFields(random, type, refs),
  }
}

function entryFields(random: Random, type: string, refs: ContentIds): Doc {
  const image = () => (refs.images.length > 0 ? random.pick(refs.images) : null)
  const body = paragraph(random, random.int(2, 5))
  switch (type) {
    case 'article':
      return { summary: sentence(random), body, heroImageId: image(), categoryIds: random.sample(refs.topicCategories, random.int(1, 2)), tagIds: random.sample(refs.tags, random.int(0, 4)), readingMinutes: random.int(2, 15) }
    case 'pressRelease':
      return { summary: sentence(random), body, contactEmail: 'press@example.com', location: random.pick(PLACES).locality }
    case 'post':
      return { excerpt: sentence(random), body, heroImageId: image(), tagIds: random.sample(refs.tags, random.int(1, 5)), featured: random.chance(0.1) }
    case 'guide':
      return { body, difficulty: random.pick(['beginner', 'intermediate', 'advanced']), version: `1.${random.int(0, 9)}`, categoryIds: random.sample(refs.topicCategories, 1) }
    case 'reference':
      return { body, apiVersion: 'v1', relatedProduct: `${random.pick(NOUNS)}` }
    default:
      return { body, navTitle: words(random, 1, 2), showInNav: random.chance(0.6) }
  }
}

const BLOCK_TYPES = [['text', 40], ['image', 25], ['quote', 12], ['callout', 13], ['embed', 10]] as const

/** Blocks owned by random entries, in the body (1), sidebar (2) or related (3) field. */
export async function seedContentBlocks(ctx: DemoContext, total: number, slice: number, entryIds: readonly number[], images: readonly number[]): Promise<void> {
  const { random } = ctx
  const order = new Map<string, number>()
  await inSlices(total, slice, async (from, to) => {
    const inputs = []
    for (let i = from; i < to; i++) {
      const ownerId = random.pick(entryIds)
      const fieldId = random.weighted([[1, 6], [2, 2], [3, 2]] as const)
      const key = `${ownerId}:${fieldId}`
      const sortOrder = order.get(key) ?? 0
      order.set(key, sortOrder + 1)
      const type = random.weighted(BLOCK_TYPES)
      inputs.push({ ownerId, fieldId, type, sortOrder, fields: blockFields(random, type, images) })
    }
    await ctx.create('content-blocks', inputs)
  })
}

function blockFields(random: Random, type: string, images: readonly number[]): Doc {
  switch (type) {
    case 'image': return { assetId: images.length > 0 ? random.pick(images) : null, caption: sentence(random, 3, 8) }
    case 'quote': return { quote: sentence(random), attribution: titleCase(words(random, 2, 2)) }
    case 'callout': return { tone: random.pick(['info', 'tip', 'warning']), text: sentence(random) }
    case 'embed': return { provider: 'video', url: `${DEMO_SITE}/media/video/${random.int(1, 500)}` }
    default: return { text: paragraph(random, random.int(1, 3)) }
  }
}
