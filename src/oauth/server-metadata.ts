// The authorization server's metadata (RFC 8414) as Gatehouse publishes it. The library's
// discovery document is written for an OpenID Provider and names things Gatehouse does not
// offer (the `openid` scope, ID token and JWKS fields, form_post and fragment response modes):
// the published document keeps only the fields below, each true of this server, and takes
// what depends on Gatehouse from Gatehouse: the scopes from the scope catalogue (under the
// cap), Client ID Metadata Documents from their setting. A field the library adds in a later
// version is left out until it is listed here (and tested).

/** How the authorization endpoint answers: in the query, the only mode OAuth 2.1 code flows use. */
export const RESPONSE_MODES: readonly string[] = ['query']

/** The library's own fields kept as it computes them (endpoints and what the configuration enables). */
const FROM_LIBRARY = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'registration_endpoint',
  'revocation_endpoint',
  'response_types_supported',
  'grant_types_supported',
  'token_endpoint_auth_methods_supported',
  'code_challenge_methods_supported',
  'authorization_response_iss_parameter_supported',
] as const

export interface MetadataFacts {
  /** Scopes a grant may carry now (derived from the scope catalogue, under the setting's cap). */
  readonly scopes: readonly string[]
  readonly clientMetadataDocuments: boolean
}

/** Gatehouse's metadata document from the library's discovery document. */
export function serverMetadata(library: Readonly<Record<string, unknown>>, facts: MetadataFacts): Record<string, unknown> {
  const doc: Record<string, unknown> = {}
  for (const key of FROM_LIBRARY) if (library[key] !== undefined) doc[key] = library[key]
  doc.scopes_supported = [...facts.scopes]
  doc.response_modes_supported = [...RESPONSE_MODES]
  // The revocation endpoint authenticates clients as the token endpoint does (RFC 8414's default here would be client_secret_basic alone).
  doc.revocation_endpoint_auth_methods_supported = library.token_endpoint_auth_methods_supported
  doc.client_id_metadata_document_supported = facts.clientMetadataDocuments
  return doc
}
