// Content behaviour: a category's level from its parent, in the same group, never under one of
// its own descendants; when a category moves, its descendants' levels follow.
import { invalid } from '../kernel/errors.js'
import type { Doc, FamilyHooks, RecordWriter } from './hooks.js'

/** Deeper than any real tree; a walk that goes on past it has met a cycle already stored. */
const MAX_DEPTH = 1000

export const categoryHooks: FamilyHooks = {
  async beforeWrite(w, next, previous) {
    // Children stay in their parent's group: a category that has some keeps its own.
    if (previous !== undefined && previous.group !== next.group && (await w.idsWhere('categories', 'parentId', next.id)).length > 0) {
      throw invalid('group', `category ${String(next.id)} has child categories in group ${String(previous.group)}; move or detach them first`)
    }
    if (next.parentId === null || next.parentId === undefined) { next.level = 1; return }
    if (next.parentId === next.id) throw invalid('parentId', 'a category cannot be its own parent')
    const parent = await w.get('categories', next.parentId as number)
    if (!parent) throw invalid('parentId', `no categories record with id ${String(next.parentId)}`)
    if (parent.group !== next.group) throw invalid('parentId', 'parent must be in the same group')
    if (next.id !== undefined && await isAncestorOf(w, next.id, parent)) {
      throw invalid('parentId', `category ${String(next.parentId)} is a descendant of category ${String(next.id)}; a category cannot be its own ancestor`)
    }
    next.level = (parent.level as number) + 1
  },
  async afterWrite(w, next, previous) {
    // A category that moved takes its subtree along: each child's level is recomputed by its
    // own write (which recurses to its children), and the feed shows each of them changed.
    if (next === null || previous === undefined || previous.level === next.level) return
    for (const child of await w.idsWhere('categories', 'parentId', next.id)) await w.update('categories', child, { parentId: next.id as number })
  },
}

/** Whether category `id` is `start` or one of its ancestors. */
async function isAncestorOf(w: RecordWriter, id: unknown, start: Doc): Promise<boolean> {
  let cursor: Doc | undefined = start
  for (let depth = 0; cursor !== undefined && depth < MAX_DEPTH; depth++) {
    if (cursor.id === id) return true
    if (cursor.parentId === null || cursor.parentId === undefined) return false
    cursor = await w.get('categories', cursor.parentId as number)
  }
  return cursor !== undefined
}

/**
 * An entry, or a draft of one, has one of its section's entry types when the section declares
 * any (a section without a list takes any handle). Checked when the section or the type is
 * set or changed, not on a restore, which puts back what was stored.
 */
export const entryTypeHooks: FamilyHooks = {
  async beforeWrite(w, next, previous, write) {
    if (write?.restore || (previous !== undefined && previous.section === next.section && previous.type === next.type)) return
    // A section that does not exist is the reference check's to name.
    const [section] = await w.docsWhere('sections', 'handle', next.section)
    const problem = entryTypeProblem(section, next.type)
    if (problem) throw invalid('type', problem)
  },
}

/** Why `type` is no entry type of `section` (undefined when it is one, or the section lists none). */
export function entryTypeProblem(section: Doc | undefined, type: unknown): string | undefined {
  const types = ((section?.entryTypes ?? []) as { handle: string }[]).map((t) => t.handle)
  return types.length > 0 && !types.includes(type as string) ? `must be one of section ${String(section?.handle)}'s entry types: ${types.join(', ')}` : undefined
}
