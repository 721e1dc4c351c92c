// `Gatehouse-Webhooks/<package version>`, read once from package.json.
import { readFileSync } from 'node:fs'

let cached: string | undefined

export function userAgent(): string {
  if (cached === undefined) {
    let version = '0.0.0'
    try {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }
      if (typeof pkg.version === 'string') version = pkg.version
    } catch {
      // A packaged build without package.json beside it still sends a well-formed agent.
    }
    cached = `Gatehouse-Webhooks/${version}`
  }
  return cached
}
