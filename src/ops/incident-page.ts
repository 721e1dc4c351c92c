// One page of incidents with the lists' pagination: GET /incidents on the machine API and the
// admin API both answer with it. The order (open first, then newest opened) changes as
// incidents open and resolve: one resolving while a client pages may be seen again among the
// resolved ones, and one opening after the first page is seen on the next first page, as on
// the other newest-first lists (approvals, executions).
import type { CursorCodec } from '../kernel/cursor.js'
import { DEFAULT_PAGE_LIMIT, listCursor } from '../kernel/list-page.js'
import type { Pagination } from '../kernel/machine-route.js'
import { incidentPosition, type Incident, type IncidentPosition, type IncidentQuery } from './incident-monitor.js'

export interface IncidentPageQuery {
  readonly severity?: IncidentQuery['severity']
  readonly status?: IncidentQuery['status']
  readonly limit?: number
  readonly cursor?: string
}

// A cursor's position, compact: [resolved 0|1, openedAt, id].
type Packed = [0 | 1, number, string]
const isPacked = (p: unknown): p is Packed =>
  Array.isArray(p) && p.length === 3 && (p[0] === 0 || p[0] === 1) && Number.isSafeInteger(p[1]) && typeof p[2] === 'string'
const pack = (p: IncidentPosition): Packed => [p.resolved ? 1 : 0, p.openedAt, p.id]
const unpack = (p: Packed): IncidentPosition => ({ resolved: p[0] === 1, openedAt: p[1], id: p[2] })

/**
 * `list` reads the incidents: the serving process's monitor (which also lists a storage_full
 * incident a full disk kept from being stored) or the table itself.
 */
export async function incidentPage(list: (q: IncidentQuery) => Promise<Incident[]>, cursors: CursorCodec, q: IncidentPageQuery): Promise<{ data: Incident[]; pagination: Pagination; meta: { mode: 'full' } }> {
  const severity = q.severity ?? 'all'
  const status = q.status ?? 'all'
  const { after, pagination } = listCursor(cursors, { severity, status }, q.cursor, isPacked)
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT
  const rows = await list({ severity, status, limit: limit + 1, after: after && unpack(after) })
  const data = rows.slice(0, limit)
  const last = data[data.length - 1]
  return { data, pagination: pagination(rows.length > limit, last && pack(incidentPosition(last))), meta: { mode: 'full' } }
}
