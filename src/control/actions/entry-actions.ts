// Governed entry actions. A draft is a record of the internal entry-drafts resource, kept
// apart from entries: it is never served as an entry, is not in the change feed's types and
// emits no webhook, so updateDraft can never publish anything. publishDraft applies a draft
// to its entry (or creates the entry) and removes the draft.
import { Type } from '@sinclair/typebox'
import { invalid, invalidMany, type ErrorDetail } from '../../kernel/errors.js'
import type { StoreWriter } from '../../store/content-store.js'
import type { Doc } from '../../resources/hooks.js'
import { entryTypeProblem } from '../../resources/content-hooks.js'
import { defineAction, type ActionTarget, type Resolved } from './control-action.js'
import { createPreview, updatePreview } from '../change-preview.js'
import type { Actor } from '../actor.js'

const Handle = () => Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' })

interface UpdateDraft {
  readonly entryId?: number | null
  readonly name: string
  readonly section?: string
  readonly type?: string
  readonly title?: string
  readonly slug?: string
  readonly fields?: Record<string, unknown>
}

/** The draft called `name` of entry `entryId` (null: of a new entry), if there is one. */
/** An entry for boundaries: its section and id (null for a new entry), as `entries` declares its `readBoundary`. */
const entryScope = (section: string, entryId: number | null): ActionTarget['scope'] => ({
  kind: 'record', type: 'entries', fields: { section, id: entryId },
  what: entryId !== null ? `entry ${entryId} in section ${section}` : `a new entry in section ${section}`,
})

async function findDraft(read: Pick<StoreWriter, 'get' | 'idsWhere'>, entryId: number | null, name: string): Promise<Doc | undefined> {
  for (const id of await read.idsWhere('entry-drafts', 'name', name)) {
    const draft = await read.get('entry-drafts', id)
    if (draft && (draft.entryId ?? null) === entryId) return draft
  }
  return undefined
}

const pick = (p: UpdateDraft): Doc =>
  Object.fromEntries((['title', 'slug', 'fields'] as const).filter((k) => p[k] !== undefined).map((k) => [k, p[k]]))

/** A new draft: the entry's content (or the new entry's section and type), then the payload's. */
const newDraft = (p: UpdateDraft, entry: Doc | undefined, executor: Actor): Doc => ({
  ...(entry ? { section: entry.section, type: entry.type, title: entry.title, slug: entry.slug, fields: entry.fields } : { section: p.section, type: p.type }),
  ...pick(p), entryId: p.entryId ?? null, name: p.name, creatorId: `${executor.type}:${executor.id}`,
})

/** What publishing applies of a draft: to an entry its content; a new entry also its section and type, live from now. */
const published = (draft: Readonly<Doc>): Doc => ({ title: draft.title, slug: draft.slug, fields: draft.fields })
const newEntry = (draft: Readonly<Doc>): Doc => ({ section: draft.section, type: draft.type, ...published(draft), status: 'live', postDate: new Date().toISOString() })

/** The advisory lock key of drafts of new entries (beside POLICY_LOCK 7270003 and ADMIN_ACCOUNTS_LOCK 7270004). */
export const NEW_ENTRY_DRAFTS_LOCK = 7270005

export const updateDraft = defineAction<UpdateDraft>({
  type: 'entry.updateDraft',
  summary: 'Create or update a named draft of an entry (title, slug, fields); never publishes',
  payload: Type.Object({
    entryId: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'The entry; null or left out: a draft of a new entry' })),
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9 _.-]*$', description: 'Draft name, unique per entry' }),
    section: Type.Optional(Handle()),
    type: Type.Optional(Handle()),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' })),
    fields: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Replaces the draft\'s custom fields' })),
  }, { additionalProperties: false }),
  defaultRiskLevel: 'low',
  boundary: 'entries',
  reads: { family: 'entries', idParam: 'entryId' },
  async resolve(p, read): Promise<Resolved> {
    const entryId = p.entryId ?? null
    if (entryId !== null) {
      const entry = await read.get('entries', entryId)
      if (!entry) throw invalid('payload.entryId', `no entries record with id ${entryId}`)
      const misplaced = (['section', 'type'] as const).filter((k) => p[k] !== undefined)
      if (misplaced.length > 0) throw invalidMany(misplaced.map((k) => ({ param: `payload.${k}`, problem: 'only for a draft of a new entry (entryId null); a draft of an entry takes its section and type' })))
      const draft = await findDraft(read, entryId, p.name)
      return { target: { entity: { type: 'entries', id: String(entryId) }, scope: entryScope(entry.section as string, entryId) }, current: draft ?? entry }
    }
    const draft = await findDraft(read, null, p.name)
    const problems: ErrorDetail[] = []
    if (draft) {
      for (const k of ['section', 'type'] as const) {
        if (p[k] !== undefined && p[k] !== draft[k]) problems.push({ param: `payload.${k}`, problem: `the draft keeps its ${k} (${String(draft[k])})` })
      }
    } else {
      for (const k of ['section', 'type', 'title', 'slug'] as const) if (p[k] === undefined) problems.push({ param: `payload.${k}`, problem: 'required for a new draft of a new entry' })
      const [sectionId] = p.section !== undefined ? await read.idsWhere('sections', 'handle', p.section) : []
      if (p.section !== undefined && sectionId === undefined) problems.push({ param: 'payload.section', problem: `no sections record with handle "${p.section}"` })
      // As the entry published from it must: one of the section's entry types, when it lists any.
      const typeProblem = sectionId !== undefined && p.type !== undefined ? entryTypeProblem(await read.get('sections', sectionId), p.type) : undefined
      if (typeProblem) problems.push({ param: 'payload.type', problem: typeProblem })
    }
    if (problems.length > 0) throw invalidMany(problems)
    return {
      target: { entity: draft ? { type: 'entry-drafts', id: String(draft.id) } : null, scope: entryScope((draft?.section ?? p.section) as string, null) },
      current: draft,
    }
  },
  limits: () => [],
  steps: [{
    name: 'saveDraft',
    async preview({ read, payload: p, executor }) {
      const entryId = p.entryId ?? null
      const existing = await findDraft(read, entryId, p.name)
      if (existing) return [await updatePreview(read, 'entry-drafts', existing.id as number, pick(p))]
      const entry = entryId === null ? undefined : await read.get('entries', entryId)
      if (entryId !== null && !entry) throw invalid('payload.entryId', `no entries record with id ${entryId}`)
      return [await createPreview(read, 'entry-drafts', newDraft(p, entry, executor))]
    },
    async run({ w, payload: p, executor }) {
      const entryId = p.entryId ?? null
      // A draft's name is unique per entry, and the index on (entry_id, name) cannot hold it for
      // a new entry's drafts (entry_id is null): concurrent saves under one name each found none
      // and made one (PostgreSQL). They take turns, so the later ones update the first.
      if (entryId === null) await w.takeTurns(NEW_ENTRY_DRAFTS_LOCK)
      const existing = await findDraft(w, entryId, p.name)
      if (existing) {
        const changes = pick(p)
        const previous = Object.fromEntries(Object.keys(changes).map((k) => [k, existing[k]]))
        const draft = Object.keys(changes).length > 0 ? await w.update('entry-drafts', existing.id as number, changes) : existing
        return { draft, created: false, previous }
      }
      const entry = entryId === null ? undefined : await w.get('entries', entryId)
      if (entryId !== null && !entry) throw invalid('payload.entryId', `no entries record with id ${entryId}`)
      const draft = await w.create('entry-drafts', newDraft(p, entry, executor))
      return { draft, created: true, previous: {} }
    },
    async undo({ w }, output) {
      const o = output as { draft: Doc; created: boolean; previous: Doc }
      if (o.created) await w.remove('entry-drafts', o.draft.id as number)
      else if (Object.keys(o.previous).length > 0) await w.update('entry-drafts', o.draft.id as number, o.previous)
    },
  }],
  result(o) {
    const { draft, created } = o.saveDraft as { draft: Doc; created: boolean }
    return { draftId: draft.id, entryId: draft.entryId, name: draft.name, created, title: draft.title, slug: draft.slug }
  },
})

interface PublishDraft { readonly draftId: number }

/** Another entry of `section` with `slug`, if there is one (slugs are unique per section). */
async function slugHolder(read: Pick<StoreWriter, 'get' | 'idsWhere'>, section: string, slug: string, self: number | null): Promise<number | undefined> {
  for (const id of await read.idsWhere('entries', 'slug', slug)) {
    if (id !== self && (await read.get('entries', id))?.section === section) return id
  }
  return undefined
}

export const publishDraft = defineAction<PublishDraft>({
  type: 'entry.publishDraft',
  summary: 'Apply a draft to its entry (title, slug, fields), or create the entry from a draft of a new entry; the draft is removed',
  payload: Type.Object({ draftId: Type.Integer({ minimum: 1, description: 'The draft (result.draftId of entry.updateDraft)' }) }, { additionalProperties: false }),
  defaultRiskLevel: 'high',
  boundary: 'entries',
  // The draft (an internal family) names the entry; simulation reads that entry.
  reads: { family: 'entries', idParam: null },
  async resolve(p, read): Promise<Resolved> {
    const draft = await read.get('entry-drafts', p.draftId)
    if (!draft) throw invalid('payload.draftId', `no draft with id ${p.draftId}`)
    const entryId = (draft.entryId as number | null) ?? null
    const entry = entryId === null ? undefined : await read.get('entries', entryId)
    if (entryId !== null && !entry) throw invalid('payload.draftId', `the draft's entry ${entryId} no longer exists`)
    // Found here, so simulation says so before anyone approves a publish that cannot succeed
    // (the unique index still decides a race: then the step fails and nothing is written).
    const section = (entry?.section ?? draft.section) as string
    const holder = typeof draft.slug === 'string' ? await slugHolder(read, section, draft.slug, entryId) : undefined
    if (holder !== undefined) throw invalid('payload.draftId', `the draft's slug ${draft.slug} is already used by entry ${holder} in section ${section}`)
    return {
      target: {
        entity: entryId !== null ? { type: 'entries', id: String(entryId) } : { type: 'entry-drafts', id: String(p.draftId) },
        scope: entryScope((entry?.section ?? draft.section) as string, entryId),
      },
      current: draft,
    }
  },
  limits: () => [],
  // The draft's content is what deciders approve: an update after the request blocks the execution.
  reviewedState: (p, draft) => ({
    subject: `draft ${p.draftId}`,
    content: Object.fromEntries((['entryId', 'section', 'type', 'title', 'slug', 'fields'] as const).map((k) => [k, draft?.[k] ?? null])),
  }),
  steps: [{
    name: 'applyDraft',
    // The content approved (the reviewed state), applied to the entry as it is now.
    async preview({ read, payload: p, reviewed }) {
      const draft = reviewed ?? await read.get('entry-drafts', p.draftId)
      if (!draft) throw invalid('payload.draftId', `no draft with id ${p.draftId}`)
      const entryId = (draft.entryId as number | null) ?? null
      return [entryId === null ? await createPreview(read, 'entries', newEntry(draft)) : await updatePreview(read, 'entries', entryId, published(draft))]
    },
    async run({ w, payload: p }) {
      const draft = await w.get('entry-drafts', p.draftId)
      if (!draft) throw invalid('payload.draftId', `no draft with id ${p.draftId}`)
      const content = published(draft)
      const entryId = (draft.entryId as number | null) ?? null
      if (entryId === null) {
        const entry = await w.create('entries', newEntry(draft))
        return { entryId: entry.id, created: true, previous: {} }
      }
      const current = await w.get('entries', entryId)
      if (!current) throw invalid('payload.draftId', `the draft's entry ${entryId} no longer exists`)
      const previous = Object.fromEntries(Object.keys(content).map((k) => [k, current[k]]))
      await w.update('entries', entryId, content)
      return { entryId, created: false, previous }
    },
    async undo({ w }, output) {
      const o = output as { entryId: number; created: boolean; previous: Doc }
      if (o.created) await w.remove('entries', o.entryId)
      else await w.update('entries', o.entryId, o.previous)
    },
  }, {
    // No undo: the write service cannot re-create a record with its old id; the
    // transaction's rollback brings the draft back.
    name: 'removeDraft',
    preview: async ({ payload: p }) => [{ type: 'entry-drafts', id: p.draftId, kind: 'delete', fields: [] }],
    async run({ w, payload: p }) {
      await w.remove('entry-drafts', p.draftId)
      return { draftId: p.draftId }
    },
  }],
  result(o) {
    const { entryId, created } = o.applyDraft as { entryId: number; created: boolean }
    return { entryId, draftId: (o.removeDraft as { draftId: number }).draftId, created }
  },
})
