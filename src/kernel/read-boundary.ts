// The read boundary (DESIGN §9) as the read operations see it: what a credential may read
// while a bounded run of its workflow is open. Named here, answered by the job runtime
// (jobs/read-boundary.ts), so the operations never import jobs/.
import type { BoundaryValues } from './caller.js'

export interface ReadBoundary {
  /** The workflows whose open runs impose the boundary (named in 403 answers). */
  readonly workflows: readonly { readonly id: string; readonly name: string }[]
  /** Axis name → values: every value any of those workflows' boundaries names. */
  readonly values: BoundaryValues
  /** When the first of those runs' leases ends (epoch ms): the boundary may change then. */
  readonly until: number
}

/** Answers the boundary on a credential's reads now, or null when none applies. */
export interface ReadBoundaries {
  readBoundary(credentialId: string): Promise<ReadBoundary | null>
  /** `readBoundary`'s answer when it is known without waiting, else undefined. */
  knownReadBoundary(credentialId: string): ReadBoundary | null | undefined
}

/** How a 403 names what limits the caller: `workflow "Nightly sync" (wf_…)`. */
export function boundaryOwner(b: ReadBoundary): string {
  return b.workflows.map((w) => `workflow "${w.name}" (${w.id})`).join(', ')
}
