// Who is asking: the identity every operation, policy and surface receives. The credential
// service (auth/) builds it from a token; the kernel only names it.

export type CredentialSource = 'managed' | 'configured' | 'legacy'

/** A boundary as stored and sent: axis name → values (ids or text). Axes not given hold nothing. */
export type BoundaryValues = Readonly<Record<string, readonly (string | number)[]>>

/** A credential's boundaries (`{ sections: ['blog'], productIds: [3] }`): the registry's axes (resources/boundary-axes.ts). */
export type Boundaries = BoundaryValues

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
