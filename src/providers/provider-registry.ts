// The providers this process loaded, and whether each is available now. Availability comes
// from the provider's own `available()` (at start-up, on a timer, and again on a request
// while it is marked unavailable) and from its calls: a ProviderUnavailableError or a call
// past the deadline marks it unavailable. Readiness, diagnostics and the routes read it here.
import { Kind, Type, type TObject, type TSchema } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import type { Logger } from 'pino'
import { ApiError, invalid } from '../kernel/errors.js'
import { providerScope, type ScopeInfo } from '../auth/scopes.js'
import { SettingsError, type Settings } from '../kernel/settings.js'
import { schemaCompiler } from './check-provider.js'
import { findProvider, firstLine, PROVIDERS_SETTING, type FoundProvider } from './load-provider.js'
import { ProviderUnavailableError, type ProviderCaller, type ProviderContext, type ProviderResource } from './provider.js'

export interface ProviderTimings {
  /** How often `available()` is checked (default 15 s). */
  readonly checkIntervalMs?: number
  /** How long a call (`list`, `get`, `available`) may take before it counts as unavailable (default 10 s). */
  readonly callTimeoutMs?: number
}

export interface ProviderResourceEntry {
  readonly provider: LoadedProvider
  readonly resource: ProviderResource
  /** `plugins:{plugin}:{resource}:read` */
  readonly scope: string
  /** The item schema as the route registry takes it. */
  readonly item: TObject
  readonly params?: TObject
  /** Top-level item properties: what `fields` may name. */
  readonly keys: readonly string[]
  readonly checkItem: ValidateFunction
}

interface Availability {
  available: boolean
  since: number
  checkedAt: number | null
  message: string | null
}

export interface LoadedProvider extends FoundProvider {
  readonly plugin: string
  readonly resources: readonly ProviderResourceEntry[]
  readonly state: Availability
}

/** One provider as readiness and diagnostics show it. */
export interface ProviderStatus {
  readonly plugin: string
  readonly entry: string
  readonly source: FoundProvider['source']
  readonly resources: readonly string[]
  readonly available: boolean
  readonly since: string
  readonly checkedAt: string | null
  readonly message: string | null
}

/** The request a provider call serves. */
export interface CallOrigin {
  readonly requestId: string
  readonly caller: ProviderCaller
}

const asSchema = (s: object): TSchema => (Kind in s ? (s as TSchema) : Type.Unsafe(s))

export const isUnavailableError = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'PROVIDER_UNAVAILABLE'
const isInputError = (err: unknown): err is { param: string; problem: string } =>
  (err as { code?: unknown } | null)?.code === 'PROVIDER_INPUT' && typeof (err as { param?: unknown }).param === 'string'

export class ProviderRegistry {
  private list: LoadedProvider[] = []
  private timer: NodeJS.Timeout | undefined
  private readonly checking = new Map<LoadedProvider, Promise<void>>()
  private checkIntervalMs = 15_000
  private callTimeoutMs = 10_000

  constructor(private readonly settings: Settings, private readonly logger: Logger) {}

  get providers(): readonly LoadedProvider[] {
    return this.list
  }

  /** Loads and starts every provider the settings name, then checks each once. */
  async load(timings: ProviderTimings = {}): Promise<void> {
    this.checkIntervalMs = timings.checkIntervalMs ?? this.checkIntervalMs
    this.callTimeoutMs = timings.callTimeoutMs ?? this.callTimeoutMs
    const started: LoadedProvider[] = []
    try {
      for (const entry of this.settings.providers) {
        const found = await findProvider(entry, this.settings)
        const twin = started.find((p) => p.plugin === found.provider.plugin)
        if (twin) throw new SettingsError(PROVIDERS_SETTING, `plugin "${found.provider.plugin}" is provided by both "${twin.entry}" and "${entry}"`)
        const loaded = this.resolve(found)
        await this.startOne(loaded)
        started.push(loaded)
      }
    } catch (err) {
      await Promise.all(started.map((p) => this.stopOne(p)))
      throw err
    }
    this.list = started
    await Promise.all(started.map((p) => this.check(p)))
  }

  private resolve(found: FoundProvider): LoadedProvider {
    const { plugin } = found.provider
    const resources: ProviderResourceEntry[] = []
    const loaded: LoadedProvider = { ...found, plugin, resources, state: { available: true, since: Date.now(), checkedAt: null, message: null } }
    for (const resource of found.provider.resources) {
      const item = asSchema(resource.item) as TObject
      resources.push({
        provider: loaded,
        resource,
        scope: providerScope(plugin, resource.name, resource.summary).scope,
        item,
        params: resource.params ? (asSchema(resource.params) as TObject) : undefined,
        keys: Object.keys(item.properties),
        checkItem: schemaCompiler.compile(resource.item),
      })
    }
    return loaded
  }

  private async startOne(p: LoadedProvider): Promise<void> {
    try {
      await p.provider.start?.({ env: process.env, cwd: process.cwd(), logger: this.logger.child({ provider: p.plugin }) })
    } catch (err) {
      if (err instanceof SettingsError) throw err
      throw new SettingsError(PROVIDERS_SETTING, `provider "${p.plugin}" (${p.source} "${p.entry}") failed to start: ${firstLine(err)}`)
    }
  }

  private async stopOne(p: LoadedProvider): Promise<void> {
    try {
      await p.provider.stop?.()
    } catch (err) {
      this.logger.warn({ err, provider: p.plugin }, 'provider failed to stop')
    }
  }

  resources(): ProviderResourceEntry[] {
    return this.list.flatMap((p) => p.resources)
  }

  /** The scopes of loaded providers' resources, for the scope catalogue's readers. */
  scopes(): ScopeInfo[] {
    return this.list.flatMap((p) => p.provider.resources.map((r) => providerScope(p.plugin, r.name, r.summary)))
  }

  statuses(): ProviderStatus[] {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
    return this.list.map((p) => ({
      plugin: p.plugin, entry: p.entry, source: p.source, resources: p.resources.map((r) => r.resource.name),
      available: p.state.available, since: new Date(p.state.since).toISOString(), checkedAt: iso(p.state.checkedAt), message: p.state.message,
    }))
  }

  /** Checks every provider that has `available()` on a timer until close(). */
  startChecks(): void {
    if (this.timer || !this.list.some((p) => p.provider.available)) return
    this.timer = setInterval(() => { for (const p of this.list) void this.check(p) }, this.checkIntervalMs)
    this.timer.unref()
  }

  async close(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await Promise.all([...this.checking.values()])
    await Promise.all(this.list.map((p) => this.stopOne(p)))
  }

  /** Runs `available()` (one check at a time per provider) and records the outcome. */
  check(p: LoadedProvider): Promise<void> {
    const available = p.provider.available?.bind(p.provider)
    if (!available) return Promise.resolve()
    let running = this.checking.get(p)
    if (!running) {
      running = this.withDeadline(() => Promise.resolve(available()), new AbortController())
        .then((ok) => (ok === false ? this.markUnavailable(p, 'available() returned false') : this.markAvailable(p)))
        .catch((err: unknown) => this.markUnavailable(p, this.reason(p, err)))
        .finally(() => {
          p.state.checkedAt = Date.now()
          this.checking.delete(p)
        })
      this.checking.set(p, running)
    }
    return running
  }

  /**
   * Runs one `list` or `get` call for a request: refused with 503 while the provider is
   * unavailable, bounded by the call deadline, its failures mapped to API errors.
   */
  async call<T>(entry: ProviderResourceEntry, origin: CallOrigin, fn: (context: ProviderContext) => Promise<T>): Promise<T> {
    const p = entry.provider
    if (!p.state.available && p.provider.available) {
      // Recovery is noticed by the timer, or here when the last check is a moment old.
      if (p.state.checkedAt === null || Date.now() - p.state.checkedAt >= Math.min(this.checkIntervalMs, 1000)) await this.check(p)
      if (!p.state.available) throw this.unavailable(p)
    }
    const controller = new AbortController()
    const logger = this.logger.child({ provider: p.plugin, resource: entry.resource.name, reqId: origin.requestId })
    try {
      const result = await this.withDeadline(() => fn({ ...origin, signal: controller.signal, logger }), controller)
      if (!p.state.available) this.markAvailable(p)
      return result
    } catch (err) {
      if (isInputError(err)) throw invalid(err.param, err.problem)
      if (!isUnavailableError(err)) throw err
      this.markUnavailable(p, this.reason(p, err))
      throw this.unavailable(p)
    }
  }

  private async withDeadline<T>(fn: () => Promise<T>, controller: AbortController): Promise<T> {
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const err = new ProviderUnavailableError(`no answer within ${this.callTimeoutMs} ms`)
        controller.abort(err)
        reject(err)
      }, this.callTimeoutMs)
    })
    const work = fn()
    // The call may still fail after the deadline has answered; that failure is not news.
    work.catch(() => {})
    try {
      return await Promise.race([work, deadline])
    } finally {
      clearTimeout(timer)
    }
  }

  private unavailable(p: LoadedProvider): ApiError {
    // The next timer check is due within one interval.
    const retryAfter = Math.max(1, Math.ceil(this.checkIntervalMs / 1000))
    return new ApiError('PROVIDER_UNAVAILABLE', `Provider ${p.plugin} is unavailable; retry later`, undefined, { 'Retry-After': String(retryAfter) })
  }

  /** What operators see: a ProviderUnavailableError's own message, otherwise only the error's kind (it may carry addresses or secrets). */
  private reason(p: LoadedProvider, err: unknown): string {
    if (isUnavailableError(err) && err instanceof Error) return firstLine(err).slice(0, 300)
    this.logger.warn({ err, provider: p.plugin }, 'provider availability check failed')
    const e = err as { name?: unknown; code?: unknown } | null
    return `available() failed: ${typeof e?.name === 'string' ? e.name : 'error'}${typeof e?.code === 'string' ? ` (${e.code})` : ''}`
  }

  private markUnavailable(p: LoadedProvider, message: string): void {
    if (p.state.available) {
      p.state.since = Date.now()
      this.logger.warn({ provider: p.plugin, reason: message }, 'provider unavailable')
    }
    p.state.available = false
    p.state.message = message
  }

  private markAvailable(p: LoadedProvider): void {
    if (!p.state.available) {
      p.state.since = Date.now()
      this.logger.info({ provider: p.plugin }, 'provider available again')
    }
    p.state.available = true
    p.state.message = null
  }
}
