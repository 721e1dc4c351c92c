// Queue health for readiness, metrics, diagnostics and the status screen: backlog and the
// age of its oldest item, dead letters, and the workers' heartbeats.
import type { Database } from '../store/database.js'

export interface WorkerHeartbeat {
  readonly workerId: string
  readonly pid: number
  readonly hostname: string
  readonly startedAt: string
  readonly heartbeatAt: string
  readonly delivered: number
  readonly failed: number
}

export interface QueueStats {
  /** Deliveries waiting (first attempts and retries), replayed dead letters included. */
  readonly queued: number
  readonly oldestQueuedAt: string | null
  readonly oldestQueuedAgeSeconds: number | null
  /** Failed dead letters awaiting replay. */
  readonly deadLetters: number
  readonly deliveredLastHour: number
  readonly workers: readonly WorkerHeartbeat[]
  readonly lastHeartbeatAt: string | null
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString())

export async function queueStats(database: Database, now = Date.now()): Promise<QueueStats> {
  const { db } = database
  const queued = await db.selectFrom('webhook_deliveries').select([(eb) => eb.fn.countAll().as('n'), (eb) => eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'queued').executeTakeFirst()
  const dead = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n'))
    .where('status', '=', 'failed').where('dead_lettered_at', 'is not', null).executeTakeFirst()
  const delivered = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n'))
    .where('status', '=', 'delivered').where('delivered_at', '>=', now - 3_600_000).executeTakeFirst()
  const workers = await db.selectFrom('webhook_workers').selectAll().orderBy('heartbeat_at', 'desc').execute()
  const oldest = queued?.oldest === null || queued?.oldest === undefined ? null : Number(queued.oldest)
  return {
    queued: Number(queued?.n ?? 0),
    oldestQueuedAt: iso(oldest),
    oldestQueuedAgeSeconds: oldest === null ? null : Math.max(0, Math.round((now - oldest) / 1000)),
    deadLetters: Number(dead?.n ?? 0),
    deliveredLastHour: Number(delivered?.n ?? 0),
    workers: workers.map((w) => ({
      workerId: w.worker_id as string, pid: Number(w.pid), hostname: w.hostname as string, startedAt: iso(w.started_at) as string,
      heartbeatAt: iso(w.heartbeat_at) as string, delivered: Number(w.delivered), failed: Number(w.failed),
    })),
    lastHeartbeatAt: iso(workers[0]?.heartbeat_at),
  }
}
