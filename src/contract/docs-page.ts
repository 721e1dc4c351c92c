// GET /gatehouse/docs: an interactive API reference (Swagger UI) rendered from the OpenAPI
// document. Its assets come from the swagger-ui-dist package in node_modules, never a CDN.
//
// The page itself needs no token, but it does not embed the document: /openapi.json is
// guarded by `openapi:read` like every machine endpoint, and embedding it would publish the
// contract to anyone who can reach the page. Instead the reader pastes a token; the page's
// script fetches the document with it and hands the same token to "Try it out". The token
// stays in the page's memory (no storage, no cookie) and goes only to this origin.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { FastifyInstance, FastifyReply } from 'fastify'

export const DOCS_PATH = '/gatehouse/docs'

const uiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

/** The only files served from the package: a fixed list, so no path reaches the file system. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
}

// Relative URLs ("v1/openapi.json" from /gatehouse/docs) keep working behind a path prefix.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gatehouse API reference</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<link rel="stylesheet" href="docs/page.css">
</head>
<body>
<header class="gh-bar">
  <h1>Gatehouse API reference</h1>
  <form id="gh-token-form" autocomplete="off">
    <label for="gh-token">Bearer token with <code>openapi:read</code></label>
    <input id="gh-token" name="token" type="password" required placeholder="gth_…" spellcheck="false">
    <button type="submit">Load reference</button>
  </form>
  <p id="gh-status" role="status">The reference is loaded from <code>/gatehouse/v1/openapi.json</code> with your token, which stays in this page only.</p>
</header>
<main id="swagger-ui"></main>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/page.js"></script>
</body>
</html>
`

const PAGE_CSS = `body{margin:0;font-family:system-ui,sans-serif}
.gh-bar{padding:1rem 2rem;background:#1f2933;color:#f5f7fa}
.gh-bar h1{margin:0 0 .5rem;font-size:1.4rem}
.gh-bar form{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.gh-bar input{min-width:24rem;padding:.4rem;font-family:monospace}
.gh-bar button{padding:.4rem .9rem}
.gh-bar code{background:#323f4b;padding:0 .25rem;border-radius:3px}
#gh-status{margin:.5rem 0 0;font-size:.9rem}
#gh-status.error{color:#ffb4b4}
`

const PAGE_JS = `'use strict';
(function () {
  var form = document.getElementById('gh-token-form');
  var status = document.getElementById('gh-status');
  function say(text, isError) { status.textContent = text; status.className = isError ? 'error' : ''; }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var token = document.getElementById('gh-token').value.trim();
    say('Loading…', false);
    fetch('v1/openapi.json', { headers: { Authorization: 'Bearer ' + token, Accept: 'application/json' } })
      .then(function (res) {
        return res.json().then(function (body) {
          if (!res.ok) throw new Error((body && body.error && body.error.code ? body.error.code + ': ' + body.error.message : 'HTTP ' + res.status));
          return body;
        });
      })
      .then(function (spec) {
        var ui = SwaggerUIBundle({
          spec: spec,
          dom_id: '#swagger-ui',
          deepLinking: true,
          presets: [SwaggerUIBundle.presets.apis],
          onComplete: function () { ui.preauthorizeApiKey('bearerAuth', token); }
        });
        say('Loaded ' + spec.info.title + ' ' + spec.info.version + '. "Try it out" sends the same token.', false);
      })
      .catch(function (err) { say('Could not load the document: ' + err.message, true); });
  });
})();
`

// Swagger UI sets inline styles, so style-src needs 'unsafe-inline'; scripts are files only.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

const cache = new Map<string, Buffer>()

function sendText(reply: FastifyReply, type: string, body: string | Buffer, maxAge: number): FastifyReply {
  return reply
    .header('Content-Security-Policy', CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', maxAge > 0 ? `public, max-age=${maxAge}` : 'no-store')
    .type(type)
    .send(body)
}

export async function docsPage(app: FastifyInstance): Promise<void> {
  // The router serves /gatehouse/docs/ here too (trailing slashes are ignored), but the page's
  // relative asset URLs resolve only from /gatehouse/docs: send the slash form there.
  app.get(DOCS_PATH, async (request, reply) => request.url.split('?')[0].endsWith('/')
    ? reply.redirect(DOCS_PATH)
    : sendText(reply, 'text/html; charset=utf-8', PAGE, 0))
  app.get(`${DOCS_PATH}/page.js`, async (_req, reply) => sendText(reply, 'application/javascript; charset=utf-8', PAGE_JS, 3600))
  app.get(`${DOCS_PATH}/page.css`, async (_req, reply) => sendText(reply, 'text/css; charset=utf-8', PAGE_CSS, 3600))
  app.get<{ Params: { file: string } }>(`${DOCS_PATH}/assets/:file`, async (request, reply) => {
    const { file } = request.params
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined
    if (!type) return reply.callNotFound()
    let body = cache.get(file)
    if (!body) {
      body = await readFile(join(uiDir, file))
      cache.set(file, body)
    }
    return sendText(reply, type, body, 86_400)
  })
}
