// Which pg errors mean what.
import type { DialectErrors } from '../dialect-adapter.js'
import { DESTROYED, errorCode as code, errorMessage as message } from '../error-fields.js'

// Node's socket errors, PostgreSQL's connection-exception class 08, operator intervention
// (class 57P: shutdown, crash, cannot connect now, database dropped, idle session timeout),
// too many connections (53300), statement_timeout (57014), and the messages pg and pg-pool
// give when a connection drops or a timeout expires.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', '53300', '57014'])
const UNAVAILABLE_CLASS = /^(08|57P)/
// 55000 (object not in prerequisite state) is an outage only when a connection is refused
// ("database … is not currently accepting connections", ALLOW_CONNECTIONS false): the same
// code also names programming errors (currval before nextval…), which stay 500s.
const refusing = (err: unknown) => code(err) === '55000' && /accepting connections/i.test(message(err))
// pg-pool's "timeout exceeded when trying to connect" is a request that waited past the connect
// timeout for one of the pool's connections, all held by requests stuck on a silent server.
const UNAVAILABLE_MESSAGES = /(Connection terminated|timeout expired|timeout exceeded when trying to connect|Query read timeout|Cannot use a pool after calling end|not queryable|connection error|Client was closed)/i

export const postgresErrors: DialectErrors = {
  uniqueViolation(err, table) {
    const e = err as { code?: string; constraint?: string; detail?: string } | null
    if (e?.code !== '23505') return undefined
    // Constraint names are `<table>_<column>_unique` (or `<table>_pkey`/`_uid_key`); the detail names every column.
    const fromDetail = /^Key \(([^)]*)\)=/.exec(e.detail ?? '')?.[1]
    if (fromDetail) return fromDetail.split(',').map((c) => c.trim().replace(/"/g, ''))
    return e.constraint ? [e.constraint.replace(`${table}_`, '').replace(/_unique$|_key$/, '')] : []
  },
  isUnavailable: (err) => UNAVAILABLE_CODES.has(String(code(err) ?? '')) || UNAVAILABLE_CLASS.test(String(code(err) ?? '')) || refusing(err)
    || UNAVAILABLE_MESSAGES.test(message(err)) || DESTROYED.test(message(err)),
  // disk_full: the server could not extend a file (class 53, insufficient resources).
  isStorageFull: (err) => code(err) === '53100',
  isWriteConflict: (err) => code(err) === '40P01' || code(err) === '40001',
  isUniqueViolation: (err) => code(err) === '23505',
  isMissingTable: (err) => code(err) === '42P01',
}
