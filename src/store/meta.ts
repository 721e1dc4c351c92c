// Small key/value settings the processes of one site share (cursor signing key, …).
import { randomBytes } from 'node:crypto'
import type { Database, Db } from './database.js'
import { readRows } from './read-statement.js'
import { frag } from './sql-fragment.js'

export async function getMeta(db: Db, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst()
  return row?.value as string | undefined
}

/** getMeta on the hot read path (a statement prepared once), for reads made on every page. */
export async function readMeta(database: Database, key: string): Promise<string | undefined> {
  const rows = await readRows(database, frag`SELECT value FROM meta WHERE key = ${key}`)
  return rows.length > 0 ? (rows[0][0] as string) : undefined
}

export async function setMeta(db: Db, key: string, value: string): Promise<void> {
  await db.insertInto('meta').values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value })).execute()
}

/** A random secret created once per site and shared by every process. */
export async function siteSecret(db: Db, key: string): Promise<Buffer> {
  const existing = await getMeta(db, key)
  if (existing) return Buffer.from(existing, 'hex')
  await db.insertInto('meta').values({ key, value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('key').doNothing()).execute()
  return Buffer.from((await getMeta(db, key)) as string, 'hex')
}

/** A value created once per site by `create` (a signing key, say) and shared by every process: the first writer wins. */
export async function siteValue(db: Db, key: string, create: () => string): Promise<string> {
  const existing = await getMeta(db, key)
  if (existing) return existing
  await db.insertInto('meta').values({ key, value: create() })
    .onConflict((oc) => oc.column('key').doNothing()).execute()
  return (await getMeta(db, key)) as string
}
