// In-process request metrics: counters by route and status, latency histograms by route,
// and the denials the machine API reports. Prometheus scrapes each process, so these are
// per process by design; what several processes must agree on (incidents, queue state)
// is read from the database instead.

/** Upper bounds of the latency buckets, in seconds (Prometheus `le`). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

export type DenialKind = 'auth' | 'scope' | 'rate'

export interface RequestCount {
  readonly route: string
  readonly method: string
  readonly status: number
  readonly count: number
}

export interface LatencyHistogram {
  readonly route: string
  /** Cumulative counts per bucket bound, then +Inf. */
  readonly buckets: readonly { readonly le: number | '+Inf'; readonly count: number }[]
  readonly sumSeconds: number
  readonly count: number
}

/** MCP tool calls by tool and outcome (`ok`, or the error code the call answered). */
export interface ToolCallCount {
  readonly tool: string
  readonly outcome: string
  readonly count: number
}

interface Histogram {
  readonly counts: number[]
  sum: number
  count: number
}

/** One route's counters by method and status, and its latency histogram. */
interface RouteStats {
  readonly byMethod: Map<string, Map<number, { route: string; method: string; status: number; count: number }>>
  readonly latency: Histogram
}

export class MetricsRegistry {
  /** By route key, then method, then status: no key is built per request. */
  private readonly routes = new Map<string, RouteStats>()
  private readonly toolCalls = new Map<string, { tool: string; outcome: string; count: number }>()
  readonly denials: Record<DenialKind, number> = { auth: 0, scope: 0, rate: 0 }

  observeRequest(route: string, method: string, status: number, elapsedMs: number): void {
    let stats = this.routes.get(route)
    if (!stats) {
      stats = { byMethod: new Map(), latency: { counts: new Array<number>(LATENCY_BUCKETS.length).fill(0), sum: 0, count: 0 } }
      this.routes.set(route, stats)
    }
    let byStatus = stats.byMethod.get(method)
    if (!byStatus) {
      byStatus = new Map()
      stats.byMethod.set(method, byStatus)
    }
    const entry = byStatus.get(status)
    if (entry) entry.count++
    else byStatus.set(status, { route, method, status, count: 1 })

    const h = stats.latency
    const seconds = elapsedMs / 1000
    const i = LATENCY_BUCKETS.findIndex((le) => seconds <= le)
    if (i >= 0) h.counts[i]++
    h.sum += seconds
    h.count++
  }

  observeToolCall(tool: string, outcome: string): void {
    const key = `${tool} ${outcome}`
    const entry = this.toolCalls.get(key)
    if (entry) entry.count++
    else this.toolCalls.set(key, { tool, outcome, count: 1 })
  }

  toolCallCounts(): ToolCallCount[] {
    return [...this.toolCalls.values()].map((c) => ({ ...c })).sort((a, b) => a.tool.localeCompare(b.tool) || a.outcome.localeCompare(b.outcome))
  }

  deny(kind: DenialKind): void {
    this.denials[kind]++
  }

  requestCounts(): RequestCount[] {
    return [...this.routes.values()].flatMap((r) => [...r.byMethod.values()].flatMap((byStatus) => [...byStatus.values()])).map((r) => ({ ...r })).sort((a, b) => a.route.localeCompare(b.route) || a.status - b.status)
  }

  latencyHistograms(): LatencyHistogram[] {
    return [...this.routes].map(([route, r]) => [route, r.latency] as const).sort(([a], [b]) => a.localeCompare(b)).map(([route, h]) => {
      let running = 0
      const buckets: { le: number | '+Inf'; count: number }[] = LATENCY_BUCKETS.map((le, i) => {
        running += h.counts[i]
        return { le, count: running }
      })
      buckets.push({ le: '+Inf', count: h.count })
      return { route, buckets, sumSeconds: h.sum, count: h.count }
    })
  }
}
