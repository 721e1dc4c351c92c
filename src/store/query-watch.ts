// The client side of PostgreSQL's query timeout: a query still without an answer `limitMs`
// after it was sent (a server or network that went silent, so `statement_timeout` never
// fires) has its connection destroyed. The query then fails with "Connection terminated",
// which answers 503, and the pool discards the client.
//
// One timer sweeps every running query. pg's own `query_timeout` arms a timer per query;
// on a distinct-page walk that cost a quarter of the throughput (the bench's floor fell from
// 2,700 to 2,100 pages/s with it alone, docs/decisions.md), mostly in garbage collection.
import type pg from 'pg'

export class QueryWatch {
  /** A pooled client runs one query at a time: when its current query was sent. */
  private readonly running = new Map<pg.ClientBase, number>()
  private readonly timer: NodeJS.Timeout

  constructor(private readonly limitMs: number) {
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(250, Math.floor(limitMs / 4))))
    this.timer.unref()
  }

  started(client: pg.ClientBase): void {
    this.running.set(client, performance.now())
  }

  ended(client: pg.ClientBase): void {
    this.running.delete(client)
  }

  close(): void {
    clearInterval(this.timer)
  }

  private sweep(): void {
    const now = performance.now()
    for (const [client, since] of this.running) {
      if (now - since <= this.limitMs) continue
      this.running.delete(client)
      // `connection` is pg's own handle on the socket (pg destroys it the same way when a
      // pipelined query times out); end() would wait for a server that does not answer.
      ;(client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy()
    }
  }
}
