// The integration recipes behind /templates and /starter-packs, as data. Each step names
// a route by method and path; its schema key and scope are looked up in the route registry
// when served, so the catalog cannot drift from the API (a test checks every step resolves).
// Snippets are real files in ./packs, run against a live server by the tests.

export interface TemplateStep {
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly purpose: string
}

export interface EnvVar {
  readonly name: string
  readonly required: boolean
  readonly description: string
  readonly example: string
}

export interface IntegrationTemplate {
  readonly id: string
  readonly displayName: string
  readonly intent: string
  readonly requiredScopes: readonly string[]
  readonly optionalScopes: readonly string[]
  readonly requiresExperimental: boolean
  readonly steps: readonly TemplateStep[]
  /** Variables the snippets read besides GATEHOUSE_BASE_URL and GATEHOUSE_TOKEN. */
  readonly env: readonly EnvVar[]
  /** File names in ./packs. */
  readonly snippets: { readonly curl: string; readonly node: string; readonly python: string }
}

export const COMMON_ENV: readonly EnvVar[] = [
  { name: 'GATEHOUSE_BASE_URL', required: true, description: 'Site address, without /gatehouse/v1', example: 'http://127.0.0.1:8080' },
  { name: 'GATEHOUSE_TOKEN', required: true, description: 'A credential token holding the required scopes', example: 'gth_…' },
]

export const templateCatalog: readonly IntegrationTemplate[] = [
  {
    id: 'catalog-sync',
    displayName: 'Catalog sync with checkpoints',
    intent: 'Keep an external copy of the product catalog current: on the first run the feed position, then a full copy, then only the changes after that position, resuming from a checkpoint after every page.',
    requiredScopes: ['products:read', 'changes:read', 'syncstate:read', 'syncstate:write'],
    optionalScopes: ['variants:read'],
    requiresExperimental: false,
    steps: [
      { method: 'GET', path: '/sync-state/lag', purpose: 'Read the saved checkpoint and how far behind it is' },
      { method: 'GET', path: '/changes/position', purpose: 'First run only: take the feed position before the copy' },
      { method: 'GET', path: '/products', purpose: 'First run only: copy every product (status=all), page by page' },
      { method: 'GET', path: '/changes', purpose: 'Follow the change feed after that position (after=), then from the checkpoint cursor' },
      { method: 'POST', path: '/sync-state/checkpoint', purpose: "Save each page's nextCursor" },
    ],
    env: [],
    snippets: { curl: 'catalog-sync.sh', node: 'catalog-sync.mjs', python: 'catalog_sync.py' },
  },
  {
    id: 'support-context',
    displayName: 'Support context lookup',
    intent: 'Give a support agent (person or assistant) the context of one order: its lines, stock of what was bought, and matching help articles.',
    requiredScopes: ['orders:read', 'variants:read', 'entries:read'],
    optionalScopes: ['orders:read_sensitive'],
    requiresExperimental: false,
    steps: [
      { method: 'GET', path: '/orders', purpose: 'Without an order number: take the first order listed' },
      { method: 'GET', path: '/orders/show', purpose: 'The order by number (customer details only with orders:read_sensitive)' },
      { method: 'GET', path: '/variants', purpose: 'Stock and availability of each SKU on the order' },
      { method: 'GET', path: '/entries', purpose: 'Help articles matching the product' },
    ],
    env: [{ name: 'GATEHOUSE_ORDER_NUMBER', required: false, description: 'The order to look up (32 hex characters)', example: 'a1b2…' }],
    snippets: { curl: 'support-context.sh', node: 'support-context.mjs', python: 'support_context.py' },
  },
  {
    id: 'webhook-cache-refresh',
    displayName: 'Webhook-driven cache refresh',
    intent: 'Keep a cache of entries, products and orders fresh: verify each signed webhook, re-read the record it names, and reconcile from the change feed for deliveries that never arrived.',
    requiredScopes: ['entries:read', 'products:read', 'orders:read', 'changes:read'],
    optionalScopes: ['entries:read_all_statuses'],
    requiresExperimental: false,
    steps: [
      { method: 'GET', path: '/entries/show', purpose: 'Re-read a changed entry (webhook resourceType entry)' },
      { method: 'GET', path: '/products/show', purpose: 'Re-read a changed product' },
      { method: 'GET', path: '/orders/show', purpose: 'Re-read a changed order' },
      { method: 'GET', path: '/changes', purpose: 'Reconcile: what changed since the last reconciliation cursor' },
    ],
    env: [
      { name: 'GATEHOUSE_WEBHOOK_SECRET', required: true, description: 'The PLUGIN_GATEHOUSE_WEBHOOK_SECRET the server signs with (Node and Python receivers)', example: 'whsec-…' },
      { name: 'RECEIVER_PORT', required: false, description: 'Port the Node and Python receivers listen on (default 8787)', example: '8787' },
      { name: 'GATEHOUSE_RESOURCE_TYPE', required: false, description: 'curl only: entry, product or order from a webhook', example: 'product' },
      { name: 'GATEHOUSE_RESOURCE_ID', required: false, description: 'curl only: resourceId from a webhook', example: '42' },
      { name: 'GATEHOUSE_CURSOR_FILE', required: false, description: 'curl only: where the reconciliation cursor is kept', example: '.gatehouse-reconcile-cursor' },
    ],
    snippets: { curl: 'cache-refresh.sh', node: 'cache-refresh.mjs', python: 'cache_refresh.py' },
  },
  {
    id: 'governed-entry-draft',
    displayName: 'Governed entry draft',
    intent: 'Let an assistant propose a revision of an entry as a named draft: simulated against policy, approved by a person, executed once with an idempotency key, never published.',
    requiredScopes: ['entries:read', 'control:actions:simulate', 'control:approvals:request', 'control:actions:execute'],
    optionalScopes: ['control:approvals:read', 'control:executions:read'],
    requiresExperimental: true,
    steps: [
      { method: 'GET', path: '/entries/show', purpose: 'The entry to revise' },
      { method: 'POST', path: '/control/policy-simulate', purpose: 'What execute would do now, without side effects' },
      { method: 'POST', path: '/control/approvals/request', purpose: 'Ask for approval (metadata.source, agentId, traceId)' },
      { method: 'POST', path: '/control/actions/execute', purpose: 'After approval: execute once (Idempotency-Key)' },
    ],
    env: [
      { name: 'GATEHOUSE_ENTRY_SLUG', required: true, description: 'Node and Python: slug of the entry to revise', example: 'hello-world' },
      { name: 'GATEHOUSE_ENTRY_ID', required: false, description: 'curl: id of the entry to revise', example: '12' },
      { name: 'GATEHOUSE_DRAFT_TITLE', required: false, description: 'The proposed title', example: 'Hello again' },
      { name: 'GATEHOUSE_APPROVAL_ID', required: false, description: 'Set on the second run to execute an approved request', example: 'apr_…' },
      { name: 'GATEHOUSE_AGENT_ID', required: false, description: 'Recorded as metadata.agentId', example: 'draft-assistant' },
    ],
    snippets: { curl: 'governed-entry-draft.sh', node: 'governed-entry-draft.mjs', python: 'governed_entry_draft.py' },
  },
  {
    id: 'scheduled-catalog-sync',
    displayName: 'Scheduled catalog sync',
    intent: 'Run the catalog sync as a governed job: a worker takes its due workflow, reports started (claiming the scheduled occurrence under a lease, so a second worker cannot run it too), follows the product change feed from its checkpoint inside the workflow\'s read boundary, and reports succeeded (or failed) with a summary that lands in the audit log.',
    requiredScopes: ['jobs:read', 'jobs:report', 'products:read', 'changes:read', 'syncstate:read', 'syncstate:write'],
    optionalScopes: [],
    requiresExperimental: false,
    steps: [
      { method: 'GET', path: '/workflows', purpose: 'The due workflows of this template that run as the caller (dueOnly=true, templateKey)' },
      { method: 'POST', path: '/workflows/run-report', purpose: 'started: claim the due occurrence under a lease (409 when another worker has it)' },
      { method: 'GET', path: '/sync-state/lag', purpose: 'The saved checkpoint of the products feed' },
      { method: 'GET', path: '/changes', purpose: 'Product changes from the checkpoint (only records inside the read boundary while the run is open)' },
      { method: 'POST', path: '/sync-state/checkpoint', purpose: "Save each page's nextCursor" },
      { method: 'POST', path: '/workflows/run-report', purpose: 'succeeded with a summary (or failed with the error)' },
    ],
    env: [
      { name: 'GATEHOUSE_WORKFLOW_ID', required: false, description: 'Run this workflow only; by default every due workflow of the template that runs as the token', example: 'wf_…' },
      { name: 'GATEHOUSE_WORKER_ID', required: false, description: 'Names this worker in run reports (default: host name and process id)', example: 'sync-worker-1' },
    ],
    snippets: { curl: 'scheduled-catalog-sync.sh', node: 'scheduled-catalog-sync.mjs', python: 'scheduled_catalog_sync.py' },
  },
  {
    id: 'operations-watch',
    displayName: 'Operations watch',
    intent: 'A scheduled check for operators: readiness, open incidents and credentials at risk, exiting non-zero when the service is not ready or a critical incident is open.',
    requiredScopes: ['readiness:read', 'incidents:read', 'lifecycle:read'],
    optionalScopes: [],
    requiresExperimental: false,
    steps: [
      { method: 'GET', path: '/readiness', purpose: 'Verdict and failing checks' },
      { method: 'GET', path: '/incidents', purpose: 'Open incidents (status=open) with recommended actions' },
      { method: 'GET', path: '/lifecycle', purpose: 'Credentials at high or critical risk' },
    ],
    env: [],
    snippets: { curl: 'operations-watch.sh', node: 'operations-watch.mjs', python: 'operations_watch.py' },
  },
]
