// A new or rotated token reaches the page that shows it through a redirect, not in the POST's
// own answer: a reload of that answer sent the form again (browsers offer to, and people
// accept), which made a second credential or rotated again, so the token just copied stopped
// working. The POST keeps the token in a short-lived cookie, encrypted with a key only the
// site's processes hold (any of them may serve the GET), and the page that shows it clears the
// cookie: shown once, and a reload says so instead of acting again.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { siteSecret } from '../store/meta.js'
import type { Db } from '../store/database.js'
import { readCookie, serializeCookie } from './cookies.js'
import { PANEL_BASE } from './layout.js'

const COOKIE = 'gatehouse_issued_token'
const PATH = `${PANEL_BASE}/accounts/issued`
/** Long enough to follow the redirect; a token left unread goes with it. */
const MAX_AGE_SECONDS = 120

export interface IssuedToken {
  readonly credentialId: string
  readonly token: string
  readonly verb: 'created' | 'rotated'
}

const keyOf = async (db: Db) => createHash('sha256').update(await siteSecret(db, 'panel_issued_token_secret')).digest()

/** Keeps `issued` for the page at PATH and redirects there (303). */
export async function redirectToIssued(db: Db, reply: FastifyReply, secure: boolean, issued: IssuedToken): Promise<FastifyReply> {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', await keyOf(db), iv)
  const body = Buffer.concat([cipher.update(JSON.stringify({ ...issued, at: Date.now() }), 'utf8'), cipher.final()])
  const value = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
  reply.header('Set-Cookie', serializeCookie(COOKIE, value, { path: PATH, secure, maxAge: MAX_AGE_SECONDS }))
  return reply.redirect(PATH, 303)
}

/** The token kept for this browser, once: the cookie is cleared with the answer. Undefined when none is kept. */
export async function takeIssued(db: Db, request: FastifyRequest, reply: FastifyReply, secure: boolean): Promise<IssuedToken | undefined> {
  const value = readCookie(request, COOKIE)
  reply.header('Set-Cookie', serializeCookie(COOKIE, '', { path: PATH, secure, maxAge: 0 }))
  if (!value) return undefined
  try {
    const raw = Buffer.from(value, 'base64url')
    const decipher = createDecipheriv('aes-256-gcm', await keyOf(db), raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    const issued = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as IssuedToken & { at: number }
    return Date.now() - issued.at <= MAX_AGE_SECONDS * 1000 ? issued : undefined
  } catch {
    return undefined
  }
}
