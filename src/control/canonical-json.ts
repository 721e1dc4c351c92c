// Canonical JSON and SHA-256 digests. Approvals are bound to the digest of their payload,
// idempotency keys to the digest of the request body and audit records to the digest of
// their content, so the same value must always give the same text: object keys are sorted
// at every depth and nothing else varies (JSON.stringify already fixes number spelling).
import { createHash } from 'node:crypto'

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null)
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v === undefined ? null : v)).join(',') + ']'
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return '{' + entries.map(([k, v]) => JSON.stringify(k) + ':' + canonicalJson(v)).join(',') + '}'
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex')

/** The digest an approval is bound to. */
export const payloadDigest = (payload: unknown): string => sha256Hex(canonicalJson(payload))
