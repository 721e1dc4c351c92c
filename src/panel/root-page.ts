// GET /: where a person lands when they open the server's address in a browser. A short page
// that links the ways in (control panel, API reference, probes) instead of a JSON 404. It
// names no version, setting or record, so it needs no authentication.
import type { FastifyInstance } from 'fastify'
import { BASE_PATH } from '../kernel/machine-route.js'
import { DOCS_PATH } from '../contract/docs-page.js'
import { PANEL_BASE } from './layout.js'

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gatehouse</title>
<style>body{margin:2rem auto;max-width:40rem;padding:0 1rem;font-family:system-ui,sans-serif;line-height:1.5}code{background:#eef;padding:0 .25rem;border-radius:3px}li{margin:.4rem 0}</style>
</head>
<body>
<h1>Gatehouse</h1>
<p>A governed machine-access API for content and commerce data.</p>
<ul>
<li><a href="${PANEL_BASE}">Control panel</a>: credentials, webhooks, approvals and audit (admin login).</li>
<li><a href="${DOCS_PATH}">API reference</a>: the OpenAPI document, with a token holding <code>openapi:read</code>.</li>
<li>Machine API: <code>${BASE_PATH}</code>, every request with <code>Authorization: Bearer &lt;token&gt;</code>; start with <code>${BASE_PATH}/capabilities</code>.</li>
<li>Health: <a href="/livez">/livez</a> (the process answers) and <a href="/readyz">/readyz</a> (the database is reachable and migrated).</li>
</ul>
</body>
</html>
`

const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

export async function rootPage(app: FastifyInstance): Promise<void> {
  app.get('/', async (_req, reply) => reply
    .header('Content-Security-Policy', CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(PAGE))
}
