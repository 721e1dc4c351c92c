// Per-credential (and, before authentication, per-address) request budgets over fixed
// one-minute windows. Counters live in memory for one process, or in Redis when
// PLUGIN_GATEHOUSE_REDIS_URL is set so several API processes share them.
import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets. */
  readonly resetSeconds: number
}

export interface RateLimiter {
  hit(key: string, limit: number, now?: number): Promise<RateDecision>
  close(): Promise<void>
}

const WINDOW_MS = 60_000

function decide(count: number, limit: number, windowStart: number, now: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)),
  }
}

export class MemoryRateLimiter implements RateLimiter {
  private window = 0
  private counts = new Map<string, number>()

  async hit(key: string, limit: number, now = Date.now()): Promise<RateDecision> {
    const windowStart = now - (now % WINDOW_MS)
    if (windowStart !== this.window) { this.window = windowStart; this.counts = new Map() }
    const count = (this.counts.get(key) ?? 0) + 1
    this.counts.set(key, count)
    return decide(count, limit, windowStart, now)
  }

  async close(): Promise<void> {}
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis

  constructor(url: string) {
    // Loaded only when Redis is configured: the client costs a few MB of memory in every
    // process that never uses it.
    const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis')
    this.redis = new Client(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: true })
    this.redis.on('error', () => {})
  }

  async hit(key: string, limit: number, now = Date.now()): Promise<RateDecision> {
    const windowStart = now - (now % WINDOW_MS)
    const k = `gatehouse:rl:${windowStart}:${key}`
    const [[, count]] = (await this.redis.multi().incr(k).pexpire(k, WINDOW_MS * 2).exec()) as [[unknown, number]]
    return decide(Number(count), limit, windowStart, now)
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => {})
  }
}

export function createRateLimiter(redisUrl: string | undefined): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl) : new MemoryRateLimiter()
}
