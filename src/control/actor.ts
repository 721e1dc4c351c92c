// Who did something, as approvals, executions and audit records name them.
import type { Caller } from '../kernel/caller.js'

export interface Actor {
  /** `credential`: a machine client; `admin`: the admin token or a control-panel admin; `system`: timers; `cli`: an operator at the command line. */
  readonly type: 'credential' | 'admin' | 'system' | 'cli'
  readonly id: string
}

export const credentialActor = (caller: Caller): Actor => ({ type: 'credential', id: caller.credentialId })

export const SYSTEM_ACTOR: Actor = { type: 'system', id: 'gatehouse' }

export const sameActor = (a: Actor, b: Actor): boolean => a.type === b.type && a.id === b.id
