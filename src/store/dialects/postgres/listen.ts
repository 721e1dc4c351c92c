// Content-change notifications between processes: NOTIFY at commit (transactions.ts) and a
// LISTEN connection of its own per process.
import type pg from 'pg'
import { sqlName } from '../../sql-quote.js'
import { loadPg } from './driver.js'

/** NOTIFY channel of content changes: this prefix and the schema name. */
export const CHANNEL_PREFIX = 'gatehouse_changes_'

/**
 * LISTEN on this schema's change channel through a connection of its own, reconnecting
 * (every second) when it is lost. Notifications sent while it was down are lost, which is
 * why `onState` reports each (re)connection. `config` bounds each attempt: its connect
 * timeout, and a `query_timeout` for the two statements that follow (a server that accepts
 * and then goes silent would otherwise hold an attempt, and the stop that waits for it, for
 * ever).
 */
export async function listenForChanges(config: pg.ClientConfig, onChange: (payload: string) => void, onState: (listening: boolean) => void): Promise<() => Promise<void>> {
  let stopped = false
  let client: pg.Client | undefined
  let retry: NodeJS.Timeout | undefined
  let attempt: Promise<void> | undefined
  const schedule = () => {
    if (stopped) return
    retry = setTimeout(() => { attempt = connect() }, 1000)
    retry.unref()
  }
  const connect = async (): Promise<void> => {
    const c = new (loadPg().Client)(config)
    c.on('error', () => {}) // 'end' follows
    c.on('end', () => {
      if (client !== c) return
      client = undefined
      onState(false)
      schedule()
    })
    c.on('notification', (m) => { if (m.payload !== undefined) onChange(m.payload) })
    try {
      await c.connect()
      const { rows } = await c.query<{ schema: string }>('SELECT current_schema() AS schema')
      await c.query(`LISTEN ${sqlName(CHANNEL_PREFIX + rows[0].schema)}`)
      if (stopped) return void (await c.end())
      client = c
      onState(true)
    } catch {
      await c.end().catch(() => {})
      schedule()
    }
  }
  await connect()
  return async () => {
    stopped = true
    clearTimeout(retry)
    // An attempt under way ends its own connection once it sees `stopped`.
    await attempt
    const c = client
    client = undefined
    await c?.end().catch(() => {})
  }
}
