// The feed's floor: the statement Gatehouse runs for a distinct `/changes?limit=200` page, for
// the bench token (every read scope, as the legacy token has), built once by the store's own
// builder and then run straight through the driver with only the position changing. So the
// gap to the Gatehouse row is what Gatehouse adds around the statement (authentication,
// validation, signed cursors, the retention check, the envelope), never a different query.
import { defaultRegistry } from '../src/resources/index.js'
import { loadSettings } from '../src/kernel/settings.js'
import { ScopeCatalog } from '../src/auth/scopes.js'
import { visibility, visibilityConditions } from '../src/operations/visibility.js'
import { renderedChangePageStatement, type FeedFamily } from '../src/store/change-page.js'
import { renderFragment } from '../src/store/sql-fragment.js'
import type { DialectAdapter } from '../src/store/dialects/dialect-adapter.js'

/** A position no real page starts from: found among the parameters and replaced per request. */
const MARK = -7_654_321

export const FEED_LIMIT = 200

/** The page statement's text, its parameters, and where the position goes among them. */
export function feedStatement(adapter: DialectAdapter): { text: string; params: unknown[]; at: number } {
  const caller = { credentialId: 'default', scopes: new Set(new ScopeCatalog(defaultRegistry).readScopes) }
  // The families served with the default settings (users and addresses are behind flags).
  const families: FeedFamily[] = defaultRegistry.enabled(loadSettings({}))
    .filter((r) => r.changeFeed !== false && caller.scopes.has(r.scope as string))
    .map((r) => ({ resource: r, withSensitive: visibility(r, caller).withSensitive, visible: visibilityConditions(defaultRegistry, r, caller) }))
  const { sql } = renderedChangePageStatement(adapter, { afterSeq: MARK, limit: FEED_LIMIT + 1, viewer: caller.credentialId }, families, FEED_LIMIT)
  const { text, params } = renderFragment(sql, adapter)
  const at = params.indexOf(MARK)
  if (at < 0 || params.indexOf(MARK, at + 1) >= 0) throw new Error('the feed statement should bind its position once')
  return { text, params, at }
}
