// Checks machine-API answers against the OpenAPI document the app publishes: the status must
// be documented for the operation, the media type too, the body must validate (Ajv, JSON
// Schema 2020-12 as OpenAPI 3.1 says, with formats) and required headers must be present.
// test-app.ts runs this on every response the suite receives; close() fails on a mismatch.
import { Ajv2020 } from 'ajv/dist/2020.js'
import * as ajvFormats from 'ajv-formats'
import type { ValidateFunction } from 'ajv'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { BASE_PATH, type MachineRoute } from '../../src/kernel/machine-route.js'
import { openapiPath } from '../../src/contract/route-contract.js'
import type { JsonSchema } from '../../src/contract/json-schema.js'

// ajv-formats is CommonJS: under NodeNext its plugin is the `default` of the namespace.
const addFormats = ajvFormats.default.default ?? ajvFormats.default

const escape = (segment: string) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))

export interface Answer {
  readonly method: string
  readonly url: string
  readonly status: number
  readonly headers: Readonly<Record<string, unknown>>
  readonly body: string
}

// One Ajv for the process, and one compiled validator per distinct schema: apps built with other
// flags publish other documents, but most of their response schemas are the same, and each
// document added to an Ajv of its own compiled them again (the checks of 63 test files took
// 10.4 s of CPU that way, 8.8 s now; most of the rest is compiling the distinct ones).
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)
const compiled = new Map<string, ValidateFunction>()

/** A JSON pointer's segments (`#/components/schemas/A~1B` → components, schemas, A/B). */
const segments = (ref: string) => ref.replace(/^#\//, '').split('/').map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))

export class ResponseContract {
  /** This document's validators, by pointer. */
  private readonly validators = new Map<string, ValidateFunction>()

  constructor(private readonly doc: JsonSchema) {}

  /** A description of the mismatch, or undefined when the answer keeps the contract. */
  check(route: MachineRoute | undefined, answer: Answer): string | undefined {
    const where = `${answer.method} ${answer.url} → ${answer.status}`
    let pointer: string[]
    let response: JsonSchema | undefined
    if (route) {
      pointer = ['paths', openapiPath(route.path), route.method.toLowerCase()]
      const op = this.at(pointer)
      if (!op) return `${where}: operation ${route.key} is not in the OpenAPI document`
      pointer = [...pointer, 'responses', String(answer.status)]
      response = this.at(pointer)
      if (!response) return `${where}: status ${answer.status} is not documented for ${route.key} (declare its error code in the route's errors)`
    } else {
      // Unknown path or wrong method under the base path: the plain error envelope.
      if (answer.status < 400) return `${where}: answered without a declared route`
      pointer = ['components', 'schemas', 'ErrorEnvelope']
      return this.validate(pointer, answer.body, where)
    }
    if (typeof response.$ref === 'string') {
      const ref = response.$ref
      pointer = ref.replace(/^#\//, '').split('/')
      response = this.at(pointer)
      if (!response) return `${where}: dangling reference ${ref}`
    }
    const headers = (response.headers ?? {}) as Record<string, JsonSchema>
    for (const [name, h] of Object.entries(headers)) {
      const def = typeof h.$ref === 'string' ? this.at((h.$ref as string).replace(/^#\//, '').split('/')) : h
      if (def?.required === true && answer.headers[name.toLowerCase()] === undefined) return `${where}: required header ${name} is missing`
    }
    const type = String(answer.headers['content-type'] ?? '').split(';')[0].trim()
    const content = (response.content ?? {}) as Record<string, JsonSchema>
    if (!content[type]) return `${where}: media type "${type}" is not documented (${Object.keys(content).join(', ') || 'none'})`
    if (!/json/.test(type) || !content[type].schema) return undefined
    return this.validate([...pointer, 'content', type, 'schema'], answer.body, where, route?.key)
  }

  private validate(pointer: readonly string[], body: string, where: string, key?: string): string | undefined {
    let value: unknown
    try {
      value = JSON.parse(body)
    } catch {
      return `${where}: body is not JSON`
    }
    const validate = this.validatorAt(pointer)
    if (!validate) return `${where}: no schema at #/${pointer.map(escape).join('/')}`
    if (validate(value)) return undefined
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`)
    return `${where}${key ? ` (${key})` : ''}: body does not match the documented schema: ${errors.join('; ')}`
  }

  /**
   * The validator of the schema at `pointer`: compiled from that schema with, at their own
   * places beside it, the parts of the document it references (transitively), so its
   * `#/components/...` references resolve as they do in the whole document. Two documents
   * whose schema and references read the same share it.
   */
  private validatorAt(pointer: readonly string[]): ValidateFunction | undefined {
    const key = pointer.join('/')
    let validate = this.validators.get(key)
    if (validate) return validate
    const schema = this.at(pointer)
    if (!schema) return undefined
    const root: Record<string, unknown> = {}
    const seen = new Set<string>()
    const follow = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return
      if (Array.isArray(node)) return node.forEach(follow)
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/') && !seen.has(v)) {
          seen.add(v)
          const path = segments(v)
          const target = this.at(path)
          if (target === undefined) continue // Ajv reports the dangling reference
          let at = root
          for (const p of path.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>
          at[path[path.length - 1]] = target
          follow(target)
        } else follow(v)
      }
    }
    follow(schema)
    const standalone = { ...root, ...schema }
    const text = JSON.stringify(standalone)
    validate = compiled.get(text)
    if (!validate) compiled.set(text, (validate = ajv.compile(standalone)))
    this.validators.set(key, validate)
    return validate
  }

  private at(pointer: readonly string[]): JsonSchema | undefined {
    let node: unknown = this.doc
    for (const p of pointer) {
      if (typeof node !== 'object' || node === null) return undefined
      node = (node as Record<string, unknown>)[p]
    }
    return typeof node === 'object' && node !== null ? (node as JsonSchema) : undefined
  }
}

const contracts = new Map<string, ResponseContract>()

/**
 * One checker per distinct document (documents differ by flags), shared by every app; keyed by
 * the document's text, which openapiDocument() has already made (making it again for every app
 * cost the suite about 2 s).
 */
export function responseContractFor({ doc, text }: { readonly doc: JsonSchema; readonly text: string }): ResponseContract {
  let c = contracts.get(text)
  if (!c) contracts.set(text, (c = new ResponseContract(doc)))
  return c
}

/**
 * Adds an onSend hook that checks every machine-API answer (under the base path, or a root
 * alias) and reports mismatches. HEAD answers carry no body and are left out.
 */
export function watchResponses(app: FastifyInstance, contract: () => ResponseContract, report: (problem: string) => void): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const route = request.routeOptions.config?.machineRoute
    const path = request.url.split('?')[0]
    if (request.method === 'HEAD' || (!route && !path.startsWith(BASE_PATH + '/') && path !== BASE_PATH)) return payload
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined
    if (body === undefined) {
      report(`${request.method} ${request.url} → ${reply.statusCode}: body is a stream; the contract check cannot read it`)
      return payload
    }
    const problem = contract().check(route, { method: request.method, url: request.url, status: reply.statusCode, headers: reply.getHeaders(), body })
    if (problem) report(problem)
    return payload
  })
}
