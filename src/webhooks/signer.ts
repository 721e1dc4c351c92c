// Signs a delivery twice:
//  - Gatehouse:         X-Gatehouse-Webhook-Signature: sha256=<lowercase hex HMAC-SHA256 of "<timestamp>.<body>">,
//                       keyed with PLUGIN_GATEHOUSE_WEBHOOK_SECRET exactly as configured (the spec's key);
//  - Standard Webhooks: webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">, keyed
//                       with the bytes a Standard Webhooks library derives from the same string: for a
//                       `whsec_<base64>` secret (what Standard Webhooks tooling generates) the
//                       base64-decoded remainder, otherwise the secret's UTF-8 bytes.
// `standardWebhooksSecret` gives the `whsec_…` form a receiver configures (docs/webhooks.md).
import { createHmac, timingSafeEqual } from 'node:crypto'
import { userAgent } from './user-agent.js'

export interface SignedHeaders {
  readonly [name: string]: string
}

const WHSEC = 'whsec_'

/** The key of the Standard Webhooks signature. */
export function standardKey(secret: string): Buffer {
  return secret.startsWith(WHSEC) ? Buffer.from(secret.slice(WHSEC.length), 'base64') : Buffer.from(secret, 'utf8')
}

export function gatehouseSignature(secret: string, timestamp: number, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return 'v1,' + createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')
}

/** The secret in the `whsec_…` form Standard Webhooks libraries expect (a whsec_ secret as it is). */
export function standardWebhooksSecret(secret: string): string {
  return secret.startsWith(WHSEC) ? secret : WHSEC + Buffer.from(secret, 'utf8').toString('base64')
}

/** Every header of a delivery attempt. `timestamp` is Unix seconds. */
export function deliveryHeaders(secret: string, deliveryId: string, timestamp: number, body: string, attempt: number): SignedHeaders {
  return {
    'content-type': 'application/json',
    'user-agent': userAgent(),
    'x-gatehouse-webhook-id': deliveryId,
    'x-gatehouse-webhook-timestamp': String(timestamp),
    'x-gatehouse-webhook-signature': gatehouseSignature(secret, timestamp, body),
    'x-gatehouse-webhook-attempt': String(attempt),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(secret, deliveryId, timestamp, body),
  }
}

const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export interface Verification {
  readonly gatehouse: boolean
  readonly standard: boolean
  readonly fresh: boolean
}

/** Checks both signatures of a received delivery (the dev sink uses it); tolerance in seconds. */
export function verifyDelivery(secret: string, headers: Readonly<Record<string, string | string[] | undefined>>, body: string,
  now = Date.now(), toleranceSeconds = 300): Verification {
  const one = (name: string) => {
    const v = headers[name]
    return Array.isArray(v) ? v[0] : v
  }
  const ts = one('x-gatehouse-webhook-timestamp') ?? ''
  const sig = one('x-gatehouse-webhook-signature') ?? ''
  const timestamp = /^\d{1,12}$/.test(ts) ? Number(ts) : NaN
  const fresh = Number.isFinite(timestamp) && Math.abs(now / 1000 - timestamp) <= toleranceSeconds
  const gatehouse = Number.isFinite(timestamp) && safeEqual(sig, gatehouseSignature(secret, timestamp, body))
  const id = one('webhook-id') ?? ''
  const sts = one('webhook-timestamp') ?? ''
  const expected = /^\d{1,12}$/.test(sts) ? standardSignature(secret, id, Number(sts), body) : undefined
  const standard = expected !== undefined && (one('webhook-signature') ?? '').split(' ').some((s) => safeEqual(s, expected))
  return { gatehouse, standard, fresh }
}
