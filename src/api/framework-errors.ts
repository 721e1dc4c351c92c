// The answers Fastify and Node would otherwise write themselves, with their own body
// (`{"error":"Bad Request","statusCode":414,…}`): a URL Fastify cannot decode, a path
// parameter over the router's limit, a request while the server closes, and the errors the
// HTTP parser raises before any request exists (headers too large, request timeout,
// malformed request). Each gets the error envelope and an X-Request-Id like every other
// answer (DESIGN §4).
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, errorCatalog, type ErrorCode } from '../kernel/errors.js'
import { sendError } from './error-handler.js'

/** This process's part of its request ids: 8 random hex digits, drawn at start. */
const PROCESS_PART = crypto.randomUUID().slice(0, 8)
let requestCount = 0

/**
 * `req_` and 20 hex digits: the process's random part, then a count of its requests. A request
 * id names a request in logs and audit records; it is no secret, so it need not be drawn anew
 * each time (a fresh random UUID cut into pieces cost 2 µs a request in the serving process).
 */
export const newRequestId = () => `req_${PROCESS_PART}${(requestCount++ % 0x1000000000000).toString(16).padStart(12, '0')}`

/** Fastify's `frameworkErrors`: called for bad URLs, over-long parameters and failed async constraints, before routing and hooks. */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('X-Request-Id', request.id)
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      return sendError(reply, request, new ApiError('INVALID_REQUEST', 'The URL is not valid: a path segment is not decodable', [{ param: '(path)', problem: 'invalid percent-encoding' }]))
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendError(reply, request, new ApiError('URI_TOO_LONG', 'A path segment is longer than 100 characters'))
    default:
      request.log.error({ err }, 'framework error')
      return sendError(reply, request, new ApiError('INTERNAL_ERROR', 'An unexpected error occurred; quote the requestId when reporting it'))
  }
}

/** What the HTTP parser's error means for the client (Node gives no request to answer on). */
function clientErrorCode(err: NodeJS.ErrnoException): ErrorCode {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT'
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE'
  return 'INVALID_REQUEST'
}

const CLIENT_MESSAGES: Partial<Record<ErrorCode, string>> = {
  REQUEST_TIMEOUT: 'The request was not received within the server\'s time limit',
  HEADERS_TOO_LARGE: 'The request line and headers are larger than 16 KiB',
  INVALID_REQUEST: 'The request is not valid HTTP',
}

/** Fastify's `clientErrorHandler`: writes the answer on the socket itself, then closes it. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset or closed connection has no one left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const code = clientErrorCode(err)
  const requestId = newRequestId()
  const body = JSON.stringify({ error: { code, message: CLIENT_MESSAGES[code] }, requestId })
  const status = errorCatalog[code].status
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(err)
}
