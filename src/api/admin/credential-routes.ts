// Credential management for operators (the CLI and the control panel call the same
// service): list, create (the token is shown once), show, update, rotate, pause, resume,
// revoke and delete. Listings never carry tokens or their digests, only a short hint.
import { Type, type TObject } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { ApiError, invalidEach, invalidMany, type ErrorDetail } from '../../kernel/errors.js'
import { expiryFromDuration, type CreateCredentialInput, type CredentialChangeActor, type CredentialService } from '../../auth/credentials.js'
import { flaggedBy, schemaProblems } from '../../store/validation.js'
import type { ResourceRegistry } from '../../resources/index.js'
import { boundaryInputSchema } from '../../resources/boundary-axes.js'
import { credentialId } from './admin-params.js'
import { sendAdminData, type AdminRoutes } from './admin-route.js'

/**
 * The create and update bodies for the app's families: webhook interests name the
 * registry's event types, boundaries its axes. Built once per registry (the panel's form is
 * checked against the same objects).
 */
export interface CredentialBodies {
  readonly create: TObject
  readonly update: TObject
}

const built = new WeakMap<ResourceRegistry, CredentialBodies>()

export function credentialBodies(resources: ResourceRegistry): CredentialBodies {
  const known = built.get(resources)
  if (known) return known
  const WebhookInterest = Type.Object({
    resourceType: Type.Union(resources.eventTypes.map((t) => Type.Literal(t))),
    actions: Type.Array(Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]), { minItems: 1 }),
  }, { additionalProperties: false })
  const credentialProperties = {
    label: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    /** Relative expiry: `30d`, `12h`, `90m`. */
    expiresIn: Type.String({ pattern: '^\\d+[dhm]$' }),
    ipAllowlist: Type.Array(Type.String({ minLength: 1, maxLength: 64 })),
    webhookInterests: Type.Array(WebhookInterest),
    boundaries: Type.Union([boundaryInputSchema(resources.boundaryAxes), Type.Null()]),
  }
  const optional = (except: readonly string[] = []) =>
    Object.fromEntries(Object.entries(credentialProperties).map(([k, v]) => [k, except.includes(k) ? v : Type.Optional(v)]))
  const bodies = {
    create: Type.Object(optional(['label', 'scopes']), { additionalProperties: false }),
    update: Type.Object(optional(), { additionalProperties: false, minProperties: 1 }),
  }
  built.set(resources, bodies)
  return bodies
}

type CredentialBody = Partial<CreateCredentialInput> & { expiresIn?: string }

/**
 * Validates a body and turns `expiresIn` into `expiresAt`. Every bad member is named at once:
 * the schema's problems, and the service's checks of the members the schema passed (an unknown
 * scope, a bad CIDR, a zero duration), where one stage used to hide the next. `earlier`: what a
 * form found while reading its fields into the body (the panel's id lists), named first.
 */
export function credentialInput(schema: TObject, body: unknown, credentials: Pick<CredentialService, 'problemsOf'>, earlier: readonly ErrorDetail[] = []): Partial<CreateCredentialInput> {
  const typed = [...earlier, ...schemaProblems(schema, body)]
  if (typed.some((d) => d.param === '(body)')) throw invalidMany(typed)
  const flagged = flaggedBy(typed)
  const { expiresIn, ...members } = Object.fromEntries(Object.entries(body as CredentialBody).filter(([k]) => !flagged(k))) as CredentialBody
  const problems = [...typed]
  let expiresAt: string | undefined
  if (expiresIn !== undefined) {
    if (members.expiresAt !== undefined) problems.push({ param: 'expiresIn', problem: 'give expiresAt or expiresIn, not both' })
    else {
      try {
        expiresAt = expiryFromDuration(expiresIn)
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        problems.push(...(err.details ?? []))
      }
    }
  }
  problems.push(...credentials.problemsOf(members).filter((d) => !flagged(d.param)))
  // The schema's problems are always worded as several (assertValid's answer before).
  if (problems.length > 0) throw typed.length > 0 ? invalidMany(problems) : invalidEach(problems)
  return expiresAt === undefined ? members : { ...members, expiresAt }
}

/** The admin behind a request, for the audit log. */
const by = (request: FastifyRequest): CredentialChangeActor => ({ type: 'admin', id: request.admin?.id ?? 'admin', requestId: request.id })

export const credentialRoutes: AdminRoutes = (admin, { services }) => {
  const { credentials } = services
  const bodies = credentialBodies(services.resources)

  admin.get('/credentials', async (request, reply) => sendAdminData(reply, request, await credentials.list()))

  admin.post('/credentials', async (request, reply) => {
    const input = credentialInput(bodies.create, request.body, credentials) as CreateCredentialInput
    const { credential, token } = await credentials.create(input, by(request))
    return sendAdminData(reply, request, { ...credential, token }, 201)
  })

  admin.get('/credentials/:id', async (request, reply) =>
    sendAdminData(reply, request, await credentials.get(credentialId(request.params))))

  admin.patch('/credentials/:id', async (request, reply) => {
    const id = credentialId(request.params)
    return sendAdminData(reply, request, await credentials.update(id, credentialInput(bodies.update, request.body, credentials), by(request)))
  })

  admin.post('/credentials/:id/rotate', async (request, reply) => {
    const { credential, token } = await credentials.rotate(credentialId(request.params), by(request))
    return sendAdminData(reply, request, { ...credential, token })
  })

  for (const [action, status] of [['pause', 'paused'], ['resume', 'active'], ['revoke', 'revoked']] as const) {
    admin.post(`/credentials/:id/${action}`, async (request, reply) =>
      sendAdminData(reply, request, await credentials.setStatus(credentialId(request.params), status, by(request))))
  }

  admin.delete('/credentials/:id', async (request, reply) => {
    await credentials.delete(credentialId(request.params), by(request))
    return reply.code(204).send()
  })
}
