// Routes whose items the read boundary cannot place (DESIGN §9, docs/jobs.md): a provider's
// items and the webhook dead-letter queue belong to no section, entry or product the boundary
// lists. While a bounded run is open they are refused as a whole, naming the workflow, rather
// than served unfiltered (a cursor minted before the run opens nothing either).
import { ApiError } from '../kernel/errors.js'
import { boundaryOwner, type ReadBoundary } from '../kernel/read-boundary.js'

export interface BoundaryLookup {
  readBoundary(credentialId: string): Promise<ReadBoundary | null>
}

/** Throws 403 when `credentialId` reads inside an open run's boundary; `what` names the route (`/webhooks/dlq`). */
export async function refuseWhileBounded(jobs: BoundaryLookup, credentialId: string, what: string): Promise<void> {
  const boundary = await jobs.readBoundary(credentialId)
  if (boundary === null) return
  throw new ApiError('FORBIDDEN', `${what} is not served inside the read boundary of ${boundaryOwner(boundary)}, which limits this credential's reads while its run is open`)
}
