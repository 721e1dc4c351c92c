// Who is asking: the identity every operation, policy and surface receives. The credential
// service (auth/) builds it from a token; the kernel only names it.

export type CredentialSource = 'managed' | 'configured' | 'legacy'

export interface Boundaries {
  readonly sections?: readonly string[]
  readonly entryIds?: readonly number[]
  readonly productIds?: readonly number[]
}

export interface Caller {
  readonly credentialId: string
  readonly label: string
  /** `operator`: the CLI acting for whoever runs it on the server (see operatorCaller). */
  readonly source: CredentialSource | 'operator'
  readonly grantedScopes: readonly string[]
  /** Granted scopes plus what deprecated aliases grant. */
  readonly scopes: ReadonlySet<string>
  readonly boundaries: Boundaries | null
}
