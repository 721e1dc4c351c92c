// Control-panel admin accounts in the `admins` table: created from the CLI (`gatehouse admin
// create`) or by `gatehouse start` on first run; the panel verifies logins against them.
import type { Db } from '../store/database.js'
import { ApiError, invalid } from '../kernel/errors.js'
import { hashPassword, verifyPassword } from './passwords.js'

export interface AdminAccount {
  readonly username: string
  readonly createdAt: string
}

export const MIN_PASSWORD_LENGTH = 10
const USERNAME = /^[A-Za-z0-9._@-]{1,100}$/

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw invalid('password', `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  if (password.length > 1024) throw invalid('password', 'must be at most 1024 characters')
}

export async function createAdmin(db: Db, username: string, password: string): Promise<AdminAccount> {
  if (!USERNAME.test(username)) throw invalid('username', 'use 1–100 letters, digits, dots, dashes, underscores or @')
  // An admin decides and is audited by username; admin tokens by their ids (`adm_…`) and the
  // configured one as `admin-token`: a username like those would be the same decider.
  if (/^adm_/i.test(username) || username.toLowerCase() === 'admin-token') throw invalid('username', 'adm_… and admin-token name admin tokens; choose another')
  checkPassword(password)
  const existing = await db.selectFrom('admins').select('username').where('username', '=', username).executeTakeFirst()
  if (existing) throw new ApiError('CONFLICT', `Admin ${username} already exists`)
  const createdAt = Date.now()
  await db.insertInto('admins').values({ username, password_hash: await hashPassword(password), created_at: createdAt }).execute()
  return { username, createdAt: new Date(createdAt).toISOString() }
}

export async function listAdmins(db: Db): Promise<AdminAccount[]> {
  const rows = await db.selectFrom('admins').select(['username', 'created_at']).orderBy('created_at').orderBy('username').execute()
  return rows.map((r) => ({ username: r.username as string, createdAt: new Date(Number(r.created_at)).toISOString() }))
}

/** Whether an admin account of that name exists (a panel session ends with its account). */
export async function adminExists(db: Db, username: string): Promise<boolean> {
  return (await db.selectFrom('admins').select('username').where('username', '=', username).executeTakeFirst()) !== undefined
}

/** The account when the password matches; undefined otherwise (same answer for an unknown name). */
export async function verifyAdminLogin(db: Db, username: string, password: string): Promise<AdminAccount | undefined> {
  const row = await db.selectFrom('admins').selectAll().where('username', '=', username).executeTakeFirst()
  // Hash anyway for an unknown name, so timing does not reveal which names exist.
  const ok = await verifyPassword(password, (row?.password_hash as string | undefined) ?? DUMMY_HASH)
  return row && ok ? { username, createdAt: new Date(Number(row.created_at)).toISOString() } : undefined
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'

/** Stores a new password hash; false when there is no such admin. */
export async function setPasswordHash(db: Db, username: string, hash: string): Promise<boolean> {
  const res = await db.updateTable('admins').set({ password_hash: hash }).where('username', '=', username).executeTakeFirst()
  return Number(res.numUpdatedRows) > 0
}

/** How many admin accounts exist. */
export async function countAdmins(db: Db): Promise<number> {
  const row = await db.selectFrom('admins').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Removes an admin account; false when there is no such admin. */
export async function removeAdminRow(db: Db, username: string): Promise<boolean> {
  const res = await db.deleteFrom('admins').where('username', '=', username).executeTakeFirst()
  return Number(res.numDeletedRows) > 0
}
