// Where the dev test sink listens, and whether a URL points at it: settings refuse a webhook
// URL that does unless the sink is on, so the rule sits below both.

export const SINK_PATH = '/gatehouse/dev/webhook-test-sink'

/**
 * Whether a URL addresses the sink's path on any host (we cannot know every name this server
 * answers to). The path is compared parsed and normalised, not searched as a substring:
 * percent-escapes decoded, `//` collapsed, a trailing slash and case ignored, dot segments
 * resolved, so no spelling that a server or proxy would route to the sink slips past.
 */
export function pointsAtSink(url: string): boolean {
  let path: string
  try {
    path = new URL(url).pathname
  } catch {
    return false
  }
  let decoded = path
  // Decode repeatedly: %252F is %2F after one proxy, / after two.
  for (let i = 0; i < 3; i++) {
    try {
      const next = decodeURIComponent(decoded)
      if (next === decoded) break
      decoded = next
    } catch {
      break
    }
  }
  const normal = decoded.replace(/\\/g, '/').replace(/\/{2,}/g, '/').replace(/\/+$/, '').toLowerCase()
  return new URL(normal || '/', 'http://x').pathname === SINK_PATH
}
