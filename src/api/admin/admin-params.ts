// Path parameters of admin routes, checked by hand so a bad one is a 400 naming it.
import { invalid } from '../../kernel/errors.js'

/** A record id from the path: a positive integer. */
export function recordId(params: unknown): number {
  const text = (params as { id?: string }).id ?? ''
  if (!/^[1-9]\d{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) throw invalid('id', 'must be a positive integer')
  return Number(text)
}

/** An admin's login name from the path (the names `gatehouse admin create` accepts). */
export function adminUsername(params: unknown): string {
  const text = (params as { username?: string }).username ?? ''
  if (!/^[A-Za-z0-9._@-]{1,100}$/.test(text)) throw invalid('username', 'not an admin username (1–100 letters, digits, dots, dashes, underscores or @)')
  return text
}

/** A credential id from the path (`cred_…`, or a configured credential's id). */
export function credentialId(params: unknown): string {
  const text = (params as { id?: string }).id ?? ''
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(text)) throw invalid('id', 'not a credential id')
  return text
}
