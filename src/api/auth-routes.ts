// GET /auth/whoami: who the token belongs to.
import { Type } from '@sinclair/typebox'
import type { Caller } from '../kernel/caller.js'
import type { MachineRoute } from '../kernel/machine-route.js'

export const WhoamiData = Type.Object({
  credentialId: Type.String(),
  label: Type.String(),
  scopes: Type.Array(Type.String()),
  source: Type.Union([Type.Literal('managed'), Type.Literal('configured'), Type.Literal('legacy')]),
}, { additionalProperties: false })

/** Who the caller is: the operation behind /auth/whoami and the MCP whoami tool. */
export const whoami = (caller: Caller) =>
  ({ credentialId: caller.credentialId, label: caller.label, scopes: [...caller.grantedScopes], source: caller.source })

export function authRoutes(): MachineRoute[] {
  return [{
    method: 'GET', path: '/auth/whoami', key: 'auth.whoami', summary: 'The calling credential: id, label and scopes', tag: 'contract',
    scope: 'auth:read', data: WhoamiData,
    handler: async ({ caller }) => ({ data: whoami(caller) }),
  }]
}
