// The page the authorization server shows when it cannot send the browser back to the client
// (an unknown client, a redirect URI that does not match exactly, a missing PKCE challenge):
// the RFC error code and its description, self-contained (no fonts or scripts from
// elsewhere; the library's default page loads a web font).
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string)

export function errorPage(out: Readonly<Record<string, string>>): string {
  const rows = Object.entries(out).filter(([k]) => k === 'error' || k === 'error_description')
    .map(([k, v]) => `<dt>${escape(k)}</dt><dd><code>${escape(String(v))}</code></dd>`).join('')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in request refused · Gatehouse</title></head>
<body><h1>Sign-in request refused</h1><p>The application that sent you here made a request Gatehouse cannot accept. Nothing was granted.</p><dl>${rows}</dl></body></html>`
}
