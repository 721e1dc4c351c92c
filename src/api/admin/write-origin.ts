// The origin of a content write made through the admin API. An admin write is `admin`,
// unless it names, in `X-Gatehouse-Origin-Credential`, the machine credential it is made
// for: a two-way sync that reads with its credential and writes back here then gets its own
// writes marked as its own, and `/changes?excludeOwn=true` leaves them out. Only admins can
// write, so naming a credential grants nothing; the id must exist so a typo is not silently
// an origin no reader will ever match.
import type { FastifyRequest } from 'fastify'
import { invalid } from '../../kernel/errors.js'
import type { ChangeOrigin } from '../../store/change-origin.js'

export const ORIGIN_CREDENTIAL_HEADER = 'x-gatehouse-origin-credential'

export async function adminWriteOrigin(request: FastifyRequest, credentialExists: (id: string) => Promise<boolean>): Promise<ChangeOrigin> {
  const named = request.headers[ORIGIN_CREDENTIAL_HEADER]
  if (named === undefined) return { kind: 'admin' }
  const param = 'X-Gatehouse-Origin-Credential'
  if (typeof named !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(named)) throw invalid(param, 'must be one credential id')
  if (!(await credentialExists(named))) throw invalid(param, `no credential with id ${named}`)
  return { kind: 'credential', credentialId: named }
}
