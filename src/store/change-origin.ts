// The origin of a change: who caused it. Every write of the content store carries one and
// the change log keeps it beside the change (migration 016). A two-way sync excludes its own
// writes by it (`/changes?excludeOwn=true`); the credential and the execution or run id are
// shown only to that same credential, everyone else sees the kind alone (an id of another
// integration tells a reader nothing it needs and names who is busy writing what).

export const ORIGIN_KINDS = ['admin', 'credential', 'control', 'import', 'job', 'system'] as const
export type OriginKind = typeof ORIGIN_KINDS[number]

export interface ChangeOrigin {
  readonly kind: OriginKind
  /** The machine credential the write was made by or for (control, job, credential). */
  readonly credentialId?: string
  /** The control execution (`exe_…`) or job run that made it. */
  readonly ref?: string
}

/** Writes that name no origin: the service's own (demo data, derived values, migrations). */
export const SYSTEM_ORIGIN: ChangeOrigin = { kind: 'system' }

/** The origin as a reader with `viewerCredentialId` sees it (see the file comment). */
export function originView(kind: string, credentialId: string | null, ref: string | null, viewerCredentialId: string | undefined): Record<string, string> {
  if (credentialId === null || viewerCredentialId === undefined || credentialId !== viewerCredentialId) return { kind }
  const refName = kind === 'job' ? 'runId' : 'executionId'
  return { kind, credentialId, ...(ref !== null ? { [refName]: ref } : {}) }
}
