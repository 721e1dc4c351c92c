// Opens a PostgreSQL database: a pool for Kysely and most reads, a few connections that
// always use generic plans, a watch on silent connections, and the change listener.
import type pg from 'pg'
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely'
import { DEFAULT_CONNECT_TIMEOUT_MS, type Database, type DatabaseOptions } from '../dialect.js'
import { type Db } from '../db.js'
import { QueryWatch } from '../../query-watch.js'
import { postgresAdapter } from './adapter.js'
import { loadPg } from './driver.js'
import { listenForChanges } from './listen.js'

export function openPostgres(url: string, options: DatabaseOptions): Database {
  const queryTimeout = options.queryTimeoutMs
  const config: pg.PoolConfig = {
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // A dead peer on an idle connection is noticed by the kernel, not only by the next query.
    keepAlive: true,
    // Tests isolate themselves in a schema of their own.
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  }
  const poolConfig: pg.PoolConfig = {
    ...config,
    max: options.poolSize ?? 10,
    // The server cancels a long statement; the client stops waiting a second later, for a
    // server that no longer answers at all (black-holed network): see QueryWatch.
    ...(queryTimeout !== undefined && queryTimeout > 0 ? { statement_timeout: queryTimeout } : {}),
  }
  const pool = new (loadPg().Pool)(poolConfig)
  // Reads whose plan the text fixes (`generic`), on connections that always use it: a few,
  // made on first use. Set by a statement, not a start-up option, which a connection string's
  // own `options` would replace and PgBouncer refuses; where the setting is unknown (before
  // PostgreSQL 12) the reads still run, planned per call. A read on a new connection waits
  // for that statement instead of being sent while it runs (pg deprecates a query sent on a
  // busy connection); it waits under the read's own watch, so a connection gone silent there
  // fails the read like any other.
  const generic = new (loadPg().Pool)({ ...poolConfig, max: Math.max(2, Math.ceil((options.poolSize ?? 10) / 2)) })
  const settingUp = new WeakMap<pg.PoolClient, Promise<unknown>>()
  generic.on('connect', (client) => { settingUp.set(client, client.query('SET plan_cache_mode = force_generic_plan').catch(() => {})) })
  const watch = queryTimeout !== undefined && queryTimeout > 0 ? new QueryWatch(queryTimeout + 1000) : undefined
  const onError = (err: Error) => options.onConnectionError?.(err)
  // A connection that drops (server restart, network cut) emits 'error' on its client, idle
  // or checked out; unhandled, that event would end the process. The query running on it
  // fails with the same error and is answered 503; the pool replaces the connection.
  for (const p of [pool, generic]) {
    p.on('error', onError)
    p.on('connect', (client) => { client.on('error', onError) })
  }
  const db: Db = new Kysely({ dialect: new PostgresDialect({ pool: discardingBrokenClients(pool, watch) }) })
  // Named statements are parsed and planned once per connection. Names are never reused
  // for another text (a connection keeps what it prepared under a name); past the cap,
  // further texts run unnamed.
  const names = new Map<string, string>()
  return {
    db, adapter: postgresAdapter, url,
    async read(text, params, opts) {
      const query: pg.QueryArrayConfig = { text, values: params as unknown[], rowMode: 'array' }
      if (opts?.prepare !== false) {
        let name = names.get(text)
        if (name === undefined && names.size < 2000) names.set(text, (name = `gh_${names.size + 1}`))
        if (name !== undefined) query.name = name
      }
      return new Promise((resolve, reject) => {
        (opts?.generic && query.name !== undefined ? generic : pool).connect((connectError, client, release) => {
          if (connectError || !client) return reject(connectError)
          watch?.started(client)
          const send = () => client.query(query, (err: Error | null, result: pg.QueryArrayResult) => {
            watch?.ended(client)
            // A client whose query failed for another reason than the server's own error
            // reply (a dropped or silent connection) is discarded, not handed out again.
            release(err && !(err instanceof loadPg().DatabaseError) ? err : undefined)
            if (err) reject(err)
            else resolve(result.rows)
          })
          const setting = settingUp.get(client)
          if (setting === undefined) return send()
          settingUp.delete(client)
          void setting.then(send)
        })
      })
    },
    // Named, so operators can tell it from pooled connections in pg_stat_activity.
    listen: (onChange, onState) => listenForChanges({ ...config, keepAlive: true, application_name: 'gatehouse change listener', query_timeout: config.connectionTimeoutMillis }, onChange, onState),
    // Both pools are ended here: Kysely ends its pool only if it ever ran a statement on it,
    // and reads (`read`) take connections from the same pool without it. An end waits for
    // every connection handed out, so the watch stops last: a query on a connection gone
    // silent ends only when the watch destroys that connection.
    close: async () => {
      try {
        // Kysely's own end of the pool fails only if this close ended it before.
        await db.destroy().catch((err: unknown) => { if (!pool.ending) throw err })
        await Promise.all([pool.ending ? undefined : pool.end(), generic.ending ? undefined : generic.end()])
      } finally {
        watch?.close()
      }
    },
  }
}

/**
 * Kysely releases a client back to the pool without saying whether it failed, so a client
 * whose query timed out on a silent server would be handed out again, still waiting for that
 * answer. This pool notes a client whose query failed for a reason other than the server's
 * own error reply (a timeout, a dropped connection) and destroys it on release.
 */
function discardingBrokenClients(pool: pg.Pool, watch: QueryWatch | undefined): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect()
      let broken = false
      const settled = () => watch?.ended(client)
      const note = (err: unknown) => {
        settled()
        if (!(err instanceof loadPg().DatabaseError)) broken = true
        throw err
      }
      return {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        query: ((...args: any[]) => {
          watch?.started(client)
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          const result = (client.query as (...a: any[]) => any)(...args)
          if (typeof result?.then !== 'function') {
            settled()
            return result
          }
          return result.then((value: unknown) => {
            settled()
            return value
          }, note)
        }) as PostgresPoolClient['query'],
        release: () => client.release(broken ? new Error('connection discarded after a failed query') : undefined),
      }
    },
    end: () => pool.end(),
  }
}
