// The job runtime on the machine API (DESIGN §9): GET /workflows and /workflows/show list and
// show the workflows that run as the caller; POST /workflows/run-report reports on a run.
// Thin routes over JobRuntime.
import { Type } from '@sinclair/typebox'
import type { MachineRoute } from '../../kernel/machine-route.js'
import { queryDigest } from '../../kernel/cursor.js'
import { invalid } from '../../kernel/errors.js'
import { parseBoolean } from '../../kernel/booleans.js'
import type { Services } from '../../operations/services.js'
import { RunReportBody, RunSchema, workflowSchemas, WorkflowShowQuery, WorkflowsQuery } from '../../jobs/job-schemas.js'
import type { RunReport } from '../../jobs/run-report.js'
import type { WorkflowStatus } from '../../jobs/workflow.js'

export function jobRoutes(services: Services): MachineRoute[] {
  const { jobs, cursors } = services
  const WorkflowSchema = workflowSchemas(services.resources.boundaryAxes).workflow
  return [
    {
      method: 'GET', path: '/workflows', key: 'workflows.list', tag: 'workflows', scope: 'jobs:read',
      summary: 'The workflows that run as the caller, with nextDueAt, isDue and latestRun, in creation order',
      querystring: WorkflowsQuery, data: Type.Array(WorkflowSchema), list: true, errors: ['INVALID_REQUEST'],
      handler: async ({ query, caller }) => {
        const dueOnly = query.dueOnly !== undefined && parseBoolean(query.dueOnly) === true
        const filters = { dueOnly, status: (query.status as WorkflowStatus | undefined) ?? null, templateKey: (query.templateKey as string | undefined) ?? null }
        const digest = queryDigest(filters)
        let after: { createdAt: number; id: string } | undefined
        if (query.cursor !== undefined) {
          const c = cursors.decode<{ q?: string; c?: number; i?: string }>(query.cursor)
          if (c.q !== digest || typeof c.c !== 'number' || typeof c.i !== 'string') throw invalid('cursor', 'cursor belongs to another query; repeat the parameters of the first page')
          after = { createdAt: c.c, id: c.i }
        }
        const { items, hasMore } = await jobs.list({
          credentialId: caller.credentialId, dueOnly, status: filters.status ?? undefined, templateKey: filters.templateKey ?? undefined, after, limit: query.limit ?? 50,
        })
        const last = items[items.length - 1]
        return {
          data: items,
          pagination: { hasMore, nextCursor: hasMore && last ? cursors.encode({ q: digest, c: Date.parse(last.createdAt), i: last.id }) : null },
        }
      },
    },
    {
      method: 'GET', path: '/workflows/show', key: 'workflows.show', tag: 'workflows', scope: 'jobs:read',
      summary: 'One workflow of the caller by id; another credential\'s workflow is a 404',
      querystring: WorkflowShowQuery, data: WorkflowSchema, errors: ['INVALID_REQUEST', 'NOT_FOUND'],
      handler: async ({ query, caller }) => ({ data: await jobs.get(query.id, caller.credentialId) }),
    },
    {
      method: 'POST', path: '/workflows/run-report', key: 'workflows.run-report', tag: 'workflows', scope: 'jobs:report',
      summary: 'Report on a run: started claims the due occurrence under a lease (or renews it); succeeded, failed and blocked end the run',
      description: 'started claims the due occurrence (the latest scheduled time at or before now that no live run holds) with a lease of PLUGIN_GATEHOUSE_JOBS_LEASE_SECONDS; repeating started with the same runId and workerId renews it. Another worker\'s started for the same occurrence, a paused or not-yet-due workflow, and any report on a run that ended are 409 CONFLICT. approval_requested keeps the run open (and renews the lease); succeeded, failed and blocked end it. A run whose lease runs out is abandoned and its occurrence is due again. approvalIds must be approvals this credential requested. Every report is audited (category job).',
      body: RunReportBody, data: RunSchema, errors: ['INVALID_REQUEST', 'NOT_FOUND', 'CONFLICT'],
      handler: async ({ body, caller, request }) => ({ data: await jobs.report(caller.credentialId, body as RunReport, request.id) }),
    },
  ]
}
