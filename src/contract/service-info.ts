// Name and version of the running service, read once from package.json so /capabilities,
// /openapi.json and the CLI report the version that is actually installed.
import { readFileSync } from 'node:fs'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string }

export const serviceInfo: { readonly name: string; readonly version: string } = Object.freeze({ name: pkg.name, version: pkg.version })

/** Where the Model Context Protocol endpoint is served (src/mcp/), outside the versioned base path. */
export const MCP_PATH = '/gatehouse/mcp'
