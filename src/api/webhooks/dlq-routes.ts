// GET /webhooks/dlq and POST /webhooks/dlq/replay on the machine API. Listings carry the
// delivery's bookkeeping but not its payload: a dead letter's snapshot is content the
// caller's webhooks:dlq:read scope does not cover (the admin API shows payloads).
import { Type } from '@sinclair/typebox'
import type { Services } from '../../operations/services.js'
import type { MachineRoute } from '../../kernel/machine-route.js'
import { deadLetterPage } from '../../webhooks/dlq-page.js'
import { refuseWhileBounded } from '../../jobs/unbounded-reads.js'
import { DeadLetterItem, DlqQuery, ReplayBody, ReplayResultData, replayRequest } from '../../webhooks/dlq-schemas.js'

export function dlqRoutes(services: Services): MachineRoute[] {
  const { database, cursors } = services
  return [{
    method: 'GET', path: '/webhooks/dlq', key: 'webhooks.dlq.list', tag: 'webhooks',
    summary: 'Dead-letter queue: deliveries that exhausted their attempts (failed) or were replayed and await delivery (queued)',
    scope: 'webhooks:dlq:read', querystring: DlqQuery, data: Type.Array(DeadLetterItem), list: true,
    errors: ['INVALID_REQUEST'],
    handler: async ({ query, caller }) => {
      // Dead letters carry deliveries of any product or entry: the boundary cannot filter them.
      await refuseWhileBounded(services.jobs, caller.credentialId, '/webhooks/dlq')
      return {
        ...(await deadLetterPage(database, cursors, { status: query.status, limit: query.limit ?? 50, cursor: query.cursor })),
        // No updatedSince here: a DLQ listing is always a full view of the queue.
        meta: { mode: 'full' },
      }
    },
  }, {
    method: 'POST', path: '/webhooks/dlq/replay', key: 'webhooks.dlq.replay', tag: 'webhooks',
    summary: 'Replay one dead-letter item by id, or all failed items with mode=all',
    scope: 'webhooks:dlq:replay', body: ReplayBody, data: ReplayResultData,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    handler: async ({ body, caller, request }) => {
      await refuseWhileBounded(services.jobs, caller.credentialId, '/webhooks/dlq/replay')
      // Audited with the credential that asked.
      return { data: await services.webhooks.replay(replayRequest(body), { type: 'credential', id: caller.credentialId, requestId: request.id }) }
    },
  }]
}
