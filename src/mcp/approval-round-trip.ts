// Approvals inside the agent's call (MCP 2026-07-28, multi round-trip requests). When
// execute_action needs an approval that is not there yet, the server requests it on the
// agent's behalf and answers an input-required result: a URL-mode elicitation pointing the
// user at the approval's page in the control panel, and a request state the client echoes
// on its retry. The state is the SDK's HMAC codec over a site secret every process shares
// (meta `mcp_request_state_secret`), bound to the credential and the method; inside it are
// the approval, the action, the payload digest, the idempotency key and an expiry, and it
// is usable once (control_round_trip_uses, checked by whichever process gets the retry).
// The decision stays the operator's: a retry only executes once the approval is approved.
import { randomBytes } from 'node:crypto'
import { ApiError } from '../kernel/errors.js'
import type { Approval } from '../control/approval-store.js'
import { payloadDigest } from '../control/canonical-json.js'
import { PANEL_BASE } from '../panel/layout.js'

/** What the signed request state carries. */
export interface RoundTripState {
  /** Random id: the single-use record's key. */
  readonly sid: string
  readonly approvalId: string
  readonly actionType: string
  readonly payloadDigest: string
  readonly idempotencyKey: string
  readonly credentialId: string
  /** Epoch ms after which the state is refused. */
  readonly expiresAt: number
}

/** How long a request state stays usable (never past its approval's own expiry). */
export const ROUND_TRIP_TTL_MINUTES = 30

/** Per request: the verified state the client echoed (if any), and how to mint the next one. */
export interface RoundTrip {
  readonly state: RoundTripState | undefined
  /** Whether the client declared URL-mode elicitation (the only kind of input this server asks for). */
  readonly canAskUrl: boolean
  mint(state: RoundTripState): Promise<string>
}

/** What an agent does about a refused state: the same call without it starts over. */
export const START_OVER = 'call execute_action again without requestState (same actionType, payload and idempotencyKey): '
  + 'the server then requests a new approval if one is still needed, or answers the execution stored under that idempotencyKey'

/**
 * A refused request state: the words the SDK's own verification seam uses, then why and what
 * to do (`next`: how to go on; by default START_OVER).
 */
export const stateRefused = (reason: string, next = START_OVER) => new RoundTripRefusal(`Invalid or expired requestState: ${reason}; ${next}`)

/**
 * A request state refused by the handler: a JSON-RPC -32602 error with the SDK's
 * `data.reason`, so a client that keys on it sees the same refusal the seam would give.
 */
export class RoundTripRefusal extends Error {
  readonly data = { reason: 'invalid_request_state' } as const
}

/**
 * Why the codec refused a state, in words (its errors are `malformed`, `mac`, `expired`,
 * `bind`). Verified here rather than by the SDK's `requestState.verify` seam, whose refusal is
 * the frozen "Invalid or expired requestState" with no reason and no way on (docs/decisions.md).
 */
export function codecRefusal(err: unknown): RoundTripRefusal {
  const why = err instanceof Error ? err.message : ''
  return stateRefused(why === 'expired' ? `it expired (states live ${ROUND_TRIP_TTL_MINUTES} minutes)`
    : why === 'bind' ? 'it was issued to another credential or for another method'
      : 'it was not issued by this server, or it was altered')
}

export function newState(approval: Approval, idempotencyKey: string, credentialId: string, now = Date.now()): RoundTripState {
  return {
    sid: randomBytes(16).toString('base64url'), approvalId: approval.id, actionType: approval.actionType, payloadDigest: approval.payloadDigest,
    idempotencyKey, credentialId, expiresAt: Math.min(Date.parse(approval.expiresAt), now + ROUND_TRIP_TTL_MINUTES * 60_000),
  }
}

/** Refuses a state that is past its expiry or was issued for another call. */
export function checkState(state: RoundTripState, call: { actionType: string; payload: Record<string, unknown>; idempotencyKey: string }, credentialId: string, now = Date.now()): void {
  if (state.credentialId !== credentialId) throw stateRefused('it was issued to another credential')
  if (now >= state.expiresAt) throw stateRefused(`it expired at ${new Date(state.expiresAt).toISOString()}`)
  if (state.actionType !== call.actionType || state.payloadDigest !== payloadDigest(call.payload) || state.idempotencyKey !== call.idempotencyKey) {
    throw stateRefused('it was issued for another actionType, payload or idempotencyKey')
  }
}

/** The approval's page in the control panel, where an operator sees the change and decides. */
export const approvalPage = (baseUrl: string, approvalId: string) => `${baseUrl.replace(/\/$/, '')}${PANEL_BASE}/approvals/${encodeURIComponent(approvalId)}`

export function waitingMessage(approval: Approval): string {
  return `Approval ${approval.id} of ${approval.actionType} is ${approval.status} (${approval.approvalsGiven} of ${approval.requiredApprovals} approvals). `
    + 'Ask an operator to review it on this page; once it is decided, retry and the action runs once.'
}

/** A decided approval that will never let the action run: a tool error saying so. */
export function closedApproval(approval: Approval): ApiError | undefined {
  const last = approval.decisions.at(-1)
  if (approval.status === 'rejected') {
    return new ApiError('CONFLICT', `Approval ${approval.id} was rejected${last ? ` by ${last.decider.type} ${last.decider.id}: ${last.reason}` : ''}; nothing was executed`)
  }
  if (approval.status === 'expired' || (approval.status !== 'consumed' && Date.now() >= Date.parse(approval.expiresAt))) {
    return new ApiError('CONFLICT', `Approval ${approval.id} expired at ${approval.expiresAt} before it was decided; nothing was executed. Call execute_action again to request a new one`)
  }
  return undefined
}
