// Admin password hashes: scrypt with a random salt, stored as one self-describing string
// `scrypt$N$r$p$<salt b64url>$<hash b64url>` so the cost can be raised later without
// breaking stored hashes. Only the hash is kept; the password is never stored.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))))

const COST = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 32

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scrypt(password, salt, KEY_LENGTH, { ...COST, maxmem: 64 * 1024 * 1024 })
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [N, r, p] = parts.slice(1, 4).map(Number)
  const salt = Buffer.from(parts[4], 'base64url')
  const expected = Buffer.from(parts[5], 'base64url')
  if (![N, r, p].every(Number.isInteger) || expected.length === 0) return false
  const key = await scrypt(password, salt, expected.length, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 })
  return timingSafeEqual(key, expected)
}
