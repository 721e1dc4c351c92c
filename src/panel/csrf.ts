// CSRF tokens: random values compared in constant time. Signed-in forms carry the
// session's token (kept in its database row); the login form, which has no session yet,
// carries a value that must equal its short-lived cookie (double submit).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export const CSRF_FIELD = '_csrf'

export const newToken = (): string => randomBytes(32).toString('base64url')

const digest = (text: string) => createHash('sha256').update(text).digest()

/** True when `given` equals `expected`; false for a missing or empty value. */
export function tokensMatch(given: unknown, expected: string | undefined): boolean {
  if (typeof given !== 'string' || given === '' || !expected) return false
  return timingSafeEqual(digest(given), digest(expected))
}
