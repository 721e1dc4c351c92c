// Content negotiation for /metrics: Prometheus text when the client prefers text/plain
// over JSON (a Prometheus scraper's Accept lists text/plain and not JSON), JSON otherwise.

/** The q-value the Accept header gives a media type (exact, then type wildcard, then any). */
export function qualityOf(accept: string, type: string): number {
  const [major] = type.split('/')
  let best = { specificity: -1, q: 0 }
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim())
    if (!range) continue
    const qParam = params.find((p) => p.startsWith('q='))
    const q = qParam ? Number(qParam.slice(2)) : 1
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1
    if (specificity > best.specificity && Number.isFinite(q)) best = { specificity, q }
  }
  return best.q
}

export function prefersPrometheusText(accept: string | undefined): boolean {
  if (!accept) return false
  return qualityOf(accept, 'text/plain') > qualityOf(accept, 'application/json')
}
