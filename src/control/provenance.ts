// Provenance of an approval request as it is recorded: `source` is the surface that received
// the request (`api` for the machine API, `mcp` for the MCP endpoint), never what the caller
// says; what the caller says about itself (an HTTP caller's own `source`, its agent's name)
// is kept and labelled as declared. The requester, the credential, is the identity. Declared
// text is refused when it holds control characters or bidirectional controls, which would
// make a name display as something else on the Approvals screen ("admin" + U+202E + …).
import { invalidMany, type ErrorDetail } from '../kernel/errors.js'

export type ApprovalSurface = 'api' | 'mcp'

/** C0/C1 controls, and the bidirectional embeddings, overrides, isolates and marks. */
const DECEPTIVE = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u

/** Where a declared text would mislead a reader, a problem naming why; undefined when it is plain. */
export function deceptiveText(text: string): string | undefined {
  return DECEPTIVE.test(text) ? 'must not contain control characters or bidirectional formatting characters (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C)' : undefined
}

type Metadata = { source: string; agentId: string; traceId: string } & Record<string, unknown>

export function recordedProvenance(metadata: Metadata, surface: ApprovalSurface): Metadata {
  const problems: ErrorDetail[] = []
  for (const [key, value] of Object.entries(metadata)) {
    const problem = typeof value === 'string' ? deceptiveText(value) : undefined
    if (problem) problems.push({ param: `metadata.${key}`, problem })
  }
  if (problems.length > 0) throw invalidMany(problems)
  if (surface === 'mcp') return metadata
  // Over HTTP the caller's own `source` is what it declared; the recorded source is the surface.
  return { ...metadata, source: surface, declaredSource: metadata.source, declared: ['declaredSource', 'agentId'] }
}
