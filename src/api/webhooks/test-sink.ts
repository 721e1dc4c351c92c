// The dev-only test sink at /gatehouse/dev/webhook-test-sink. It exists only when both
// PLUGIN_GATEHOUSE_DEV_MODE and PLUGIN_GATEHOUSE_WEBHOOK_TEST_SINK are true (buildApp does
// not register it otherwise, so the path is a 404). It accepts any POST, like a receiver
// would, verifies the signatures over the raw body and records the capture.
import type { FastifyInstance } from 'fastify'
import type { Services } from '../../operations/services.js'
import { recordCapture } from '../../webhooks/sink-captures.js'
import { SINK_PATH } from '../../kernel/sink-path.js'

export async function registerTestSink(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(async (sink) => {
    // Signatures cover the exact bytes, so the body is kept as received, whatever its type.
    sink.removeAllContentTypeParsers()
    sink.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body))
    sink.post(SINK_PATH, async (request, reply) => {
      const body = typeof request.body === 'string' ? request.body : ''
      const valid = await recordCapture(services.database, services.settings, request.headers, body)
      return reply.type('application/json; charset=utf-8').send({ ok: true, signatureValid: valid })
    })
  })
}
