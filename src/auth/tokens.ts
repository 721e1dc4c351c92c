// Token format and storage: `gth_` + 256 random bits (base64url); stored only as a
// SHA-256 digest, and looked up by digest so no stored value can be replayed as a token.
import { hash, randomBytes } from 'node:crypto'

export const TOKEN_PREFIX = 'gth_'

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url')
}

/** SHA-256 in one call: no hash object per request (digested on every authenticated request). */
export function digestToken(token: string): string {
  return hash('sha256', token, 'hex')
}

/** A short, non-secret hint to recognise a token in listings (`gth_…a1b2`). */
export function tokenHint(token: string): string {
  return `${token.slice(0, 4)}…${token.slice(-4)}`
}

export function generateId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`
}
