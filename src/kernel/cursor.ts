// Opaque, signed cursors: base64url(JSON payload) + "." + HMAC. A cursor carries its
// position and a digest of the query it belongs to, so it cannot be forged, edited, or
// reused with other parameters.
import { createHmac, createSecretKey, hash, timingSafeEqual, type KeyObject } from 'node:crypto'
import { invalid } from './errors.js'

export class CursorCodec {
  // Imported once: an HMAC keyed by a Buffer imports the key again each time (a third dearer;
  // every page signs one cursor and checks another).
  private readonly key: KeyObject

  constructor(secret: Buffer) {
    this.key = createSecretKey(secret)
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url').slice(0, 22)
  }

  encode(payload: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
    return `${body}.${this.sign(body)}`
  }

  /** Decodes and verifies; any tampering is a 400 naming `cursor`. */
  decode<T extends Record<string, unknown>>(cursor: string): T {
    const dot = cursor.indexOf('.')
    if (dot <= 0 || cursor.length > 2048) throw invalid('cursor', 'malformed cursor')
    const body = cursor.slice(0, dot)
    const given = Buffer.from(cursor.slice(dot + 1))
    const expected = Buffer.from(this.sign(body))
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('cursor', 'cursor signature does not match; use nextCursor as given')
    try {
      const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown
      if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object')
      return parsed as T
    } catch {
      throw invalid('cursor', 'malformed cursor')
    }
  }
}

/** A short digest of the parameters a cursor belongs to. */
export function queryDigest(parts: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(parts).sort()
  return hash('sha256', JSON.stringify(keys.map((k) => [k, parts[k]])), 'base64url').slice(0, 16)
}
