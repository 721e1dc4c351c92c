// Text PostgreSQL cannot store or compare (NUL characters, lone UTF-16 surrogates) is refused
// before it reaches the database, on every surface: the machine API checks its query and body
// (machine-api.ts); this gives the admin API and the control panel the same check over the
// path parameters, the query string and the body, a JSON value or a panel form.
import type { FastifyRequest } from 'fastify'
import { textProblem } from '../store/validation.js'

type Problem = { param: string; problem: string }

function formProblem(form: URLSearchParams): Problem | undefined {
  for (const [key, value] of form) {
    const bad = textProblem(key, '(field name)') ?? textProblem(value, key)
    if (bad !== undefined) return bad
  }
  return undefined
}

/** The first parameter of the request holding text the database cannot take, named as a 400 names it. */
export function requestTextProblem(request: FastifyRequest): Problem | undefined {
  return textProblem(request.params, '')
    ?? textProblem(request.query, '')
    ?? (request.body instanceof URLSearchParams ? formProblem(request.body) : textProblem(request.body, ''))
}
