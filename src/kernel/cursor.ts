// Opaque, signed cursors: base64url(text) + "." + MAC, the text a JSON payload or a
// format of the caller's own (list pages write theirs without JSON: list-position.ts, which
// `decode` also reads, so a list page's cursor sent to another endpoint is answered as one of
// another query, as when every cursor was JSON).
// A cursor carries its position and a digest of the query it belongs to, so it cannot be
// forged, edited, or reused with other parameters.
//
// The MAC is SHA3-256 over a derived key followed by the body. SHA-3 is not open to length
// extension, so a key prefix makes it a MAC on its own (the construction KMAC standardises),
// and Node computes it in one call without a crypto object. HMAC-SHA256 cost 10–12 µs a
// cursor inside the serving process (a Node Hmac object each time, and OpenSSL's digest lookup),
// a tenth of Gatehouse's own cost per list page (docs/decisions.md, "Cursors signed in one
// call"). Cursors signed before (HMAC-SHA256, same key) are still accepted: sync workers keep
// them in their checkpoints.
import { createHmac, createSecretKey, hash, type KeyObject } from 'node:crypto'
import { invalid } from './errors.js'
import { isListPositionText, readListPosition } from './list-position.js'

/** Characters of the MAC kept in a cursor (132 bits of base64url). */
const MAC_LENGTH = 22

export class CursorCodec {
  /** The SHA-3 MAC's key, derived from the site secret so it is not the HMAC's key too. */
  private readonly macKey: string
  /** The key of cursors signed before (HMAC-SHA256), kept to verify them. */
  private readonly legacyKey: KeyObject

  constructor(secret: Buffer) {
    this.legacyKey = createSecretKey(secret)
    this.macKey = createHmac('sha256', secret).update('gatehouse cursor mac: sha3-256').digest('base64url')
  }

  private sign(body: string): string {
    return hash('sha3-256', this.macKey + body, 'base64url').slice(0, MAC_LENGTH)
  }

  private signedBefore(body: string): string {
    return createHmac('sha256', this.legacyKey).update(body).digest('base64url').slice(0, MAC_LENGTH)
  }

  encode(payload: Record<string, unknown>): string {
    return this.encodeText(JSON.stringify(payload))
  }

  /** A cursor around any text. */
  encodeText(text: string): string {
    const body = Buffer.from(text).toString('base64url')
    return `${body}.${this.sign(body)}`
  }

  /** The text of a cursor whose signature holds; any tampering is a 400 naming `cursor`. */
  decodeText(cursor: string): string {
    const dot = cursor.indexOf('.')
    if (dot <= 0 || cursor.length > 2048) throw invalid('cursor', 'malformed cursor')
    const body = cursor.slice(0, dot)
    const given = cursor.slice(dot + 1)
    if (!sameText(given, this.sign(body)) && !sameText(given, this.signedBefore(body))) {
      throw invalid('cursor', 'cursor signature does not match; use nextCursor as given')
    }
    return Buffer.from(body, 'base64url').toString('utf8')
  }

  /** Decodes and verifies a JSON payload; any tampering is a 400 naming `cursor`. */
  decode<T extends Record<string, unknown>>(cursor: string): T {
    const text = this.decodeText(cursor)
    if (isListPositionText(text)) {
      const position = readListPosition(text)
      if (position === undefined) throw invalid('cursor', 'malformed cursor')
      return position as unknown as T
    }
    try {
      const parsed = JSON.parse(text) as unknown
      if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object')
      return parsed as T
    } catch {
      throw invalid('cursor', 'malformed cursor')
    }
  }
}

/**
 * Compares a given MAC with the expected one in time that does not depend on where they differ
 * (every character is looked at). Plain code, not `timingSafeEqual`: that needs both copied
 * into Buffers first, 3.5 µs a page in the serving process for 22 characters.
 */
function sameText(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false
  let diff = 0
  for (let i = 0; i < expected.length; i++) diff |= given.charCodeAt(i) ^ expected.charCodeAt(i)
  return diff === 0
}

/** Digests of the queries seen lately, by `memoKey`: the same query asks for one on every page. */
const digests = new Map<string, string>()
const DIGESTS_KEPT = 1000

/**
 * A short digest of the parameters a cursor belongs to: of the JSON text of its sorted entries,
 * which cursors already handed out hold, so it can never change.
 */
export function queryDigest(parts: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(parts).sort()
  const key = memoKey(keys, parts)
  let digest = digests.get(key)
  if (digest === undefined) {
    digest = hash('sha256', JSON.stringify(keys.map((k) => [k, parts[k]])), 'base64url').slice(0, 16)
    if (digests.size >= DIGESTS_KEPT) digests.clear()
    digests.set(key, digest)
  }
  return digest
}

/**
 * The entries as a text that no other entries make (each string prefixed by its length), in
 * place of the JSON text: a list page's parameters are all strings, and writing them as JSON
 * on every page cost more than the rest of the digest.
 */
function memoKey(keys: readonly string[], parts: Readonly<Record<string, unknown>>): string {
  let key = ''
  for (const k of keys) {
    const v = parts[k]
    key += k.length + ':' + k + (typeof v === 'string' ? 's' + v.length + ':' + v : 'j' + JSON.stringify(v) + ';')
  }
  return key
}
