// Per-credential (and, before authentication, per-address) request budgets over fixed
// one-minute windows. Counters live in memory for one process, or in Redis when
// PLUGIN_GATEHOUSE_REDIS_URL is set so several API processes share them.
//
// Redis is a shared counter, not a dependency of serving: when it cannot be reached (or
// does not answer within a quarter second), requests are counted in this process's memory
// instead, readiness says `degraded`, and each such request is reported (the
// `rate_limit_store` incident). A circuit breaker keeps a dead Redis from costing every
// request a timeout; Redis is used again as soon as it is back.
import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'
import type { Settings } from '../kernel/settings.js'

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets. */
  readonly resetSeconds: number
}

/** Where counters are kept now (readiness and diagnostics show it). */
export interface RateLimiterHealth {
  readonly store: 'memory' | 'redis'
  /** Redis is configured but counters are kept per process for now. */
  readonly degraded: boolean
  readonly problem: string | null
}

export interface RateLimiter {
  hit(key: string, limit: number, now?: number): Promise<RateDecision>
  /**
   * `hit` without waiting, where the counters are in this process; undefined (nothing counted)
   * where they are elsewhere and `hit` must be awaited.
   */
  hitNow?(key: string, limit: number, now?: number): RateDecision | undefined
  health(): RateLimiterHealth
  /** Called for each request counted in memory because Redis is unavailable (incident signal). */
  onFallback?: () => void
  close(): Promise<void>
}

const WINDOW_MS = 60_000

/** Limits on waiting for Redis (docs/configuration.md, PLUGIN_GATEHOUSE_REDIS_URL). */
export const REDIS_LIMITS = Object.freeze({
  connectTimeoutMs: 1000,
  commandTimeoutMs: 250,
  /** After a failed command, counters stay in memory this long before Redis is tried again. */
  breakerOpenMs: 5000,
})

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
    return this.hitNow(key, limit, now)
  }

  hitNow(key: string, limit: number, now = Date.now()): RateDecision {
    const windowStart = now - (now % WINDOW_MS)
    if (windowStart !== this.window) { this.window = windowStart; this.counts = new Map() }
    const count = (this.counts.get(key) ?? 0) + 1
    this.counts.set(key, count)
    return decide(count, limit, windowStart, now)
  }

  health(): RateLimiterHealth {
    return { store: 'memory', degraded: false, problem: null }
  }

  async close(): Promise<void> {}
}

export class RedisRateLimiter implements RateLimiter {
  onFallback?: () => void
  private readonly redis: Redis
  private readonly local = new MemoryRateLimiter()
  /** Redis is skipped until then (the breaker is open). */
  private openUntil = 0
  private problem: string | null = null
  /** Settles when the first connection attempt has succeeded or failed. */
  private readonly firstAttempt: Promise<void>

  constructor(url: string, private readonly prefix: string) {
    // Loaded only when Redis is configured: the client costs a few MB of memory in every
    // process that never uses it.
    const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis')
    this.redis = new Client(url, {
      // Connects on the first request: while the app is being built the event loop may be
      // busy for longer than the connect timeout, which would count as Redis being down.
      lazyConnect: true,
      // Fail at once while disconnected instead of queueing behind a reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: REDIS_LIMITS.connectTimeoutMs,
      commandTimeout: REDIS_LIMITS.commandTimeoutMs,
      retryStrategy: (times) => Math.min(100 * times, 2000),
    })
    let settle: () => void = () => {}
    this.firstAttempt = new Promise((resolve) => { settle = resolve })
    this.redis.on('ready', () => { this.openUntil = 0; this.problem = null; settle() })
    this.redis.on('error', (err: Error) => { this.problem = `Redis unavailable: ${err.message}`; settle() })
    this.redis.on('close', () => { this.problem ??= 'Redis connection closed'; settle() })
  }

  async hit(key: string, limit: number, now = Date.now()): Promise<RateDecision> {
    // Only the first requests of a process wait for the first connection, and at most the connect timeout.
    if (this.redis.status === 'wait') this.redis.connect().catch(() => {})
    if (this.redis.status === 'connecting' || this.redis.status === 'connect' || this.redis.status === 'wait') {
      await Promise.race([this.firstAttempt, new Promise((r) => setTimeout(r, REDIS_LIMITS.connectTimeoutMs).unref())])
    }
    if (this.redis.status !== 'ready' || Date.now() < this.openUntil) return this.fallback(key, limit, now)
    const windowStart = now - (now % WINDOW_MS)
    const k = `${this.prefix}rl:${windowStart}:${key}`
    try {
      const [[err, count]] = (await this.redis.multi().incr(k).pexpire(k, WINDOW_MS * 2).exec()) as [[Error | null, number]]
      if (err) throw err
      return decide(Number(count), limit, windowStart, now)
    } catch (err) {
      this.openUntil = Date.now() + REDIS_LIMITS.breakerOpenMs
      this.problem = `Redis unavailable: ${(err as Error).message}`
      return this.fallback(key, limit, now)
    }
  }

  private fallback(key: string, limit: number, now: number): Promise<RateDecision> {
    this.onFallback?.()
    return this.local.hit(key, limit, now)
  }

  health(): RateLimiterHealth {
    // Not connected yet because nothing needed it yet is not a problem.
    if (this.redis.status === 'wait') return { store: 'redis', degraded: false, problem: null }
    const degraded = this.redis.status !== 'ready' || Date.now() < this.openUntil
    return { store: 'redis', degraded, problem: degraded ? (this.problem ?? `Redis connection ${this.redis.status}`) : null }
  }

  async close(): Promise<void> {
    // quit() waits for an answer a dead Redis never gives; disconnect() does not.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => {})
    this.redis.disconnect()
  }
}

export function createRateLimiter(settings: Pick<Settings, 'redisUrl' | 'redisPrefix'>): RateLimiter {
  return settings.redisUrl ? new RedisRateLimiter(settings.redisUrl, settings.redisPrefix) : new MemoryRateLimiter()
}
