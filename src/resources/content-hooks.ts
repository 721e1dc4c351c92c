// Content behaviour: a category's level from its parent, in the same group.
import { invalid } from '../kernel/errors.js'
import type { FamilyHooks } from './hooks.js'

export const categoryHooks: FamilyHooks = {
  async beforeWrite(w, next) {
    if (next.parentId === null || next.parentId === undefined) { next.level = 1; return }
    if (next.parentId === next.id) throw invalid('parentId', 'a category cannot be its own parent')
    const parent = await w.get('categories', next.parentId as number)
    if (!parent) throw invalid('parentId', `no categories record with id ${String(next.parentId)}`)
    if (parent.group !== next.group) throw invalid('parentId', 'parent must be in the same group')
    next.level = (parent.level as number) + 1
  },
}
