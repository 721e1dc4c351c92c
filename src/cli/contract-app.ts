// The machine API's contract (routes, scopes, OpenAPI) as this configuration serves it,
// without a database: it depends only on settings and the registries, so commands that print
// it build the app on a throwaway in-memory store and write nothing anywhere.
import { pino } from 'pino'
import { buildApp, type GatehouseApp } from '../compose/app.js'
import { loadCliSettings } from './context.js'

export async function withContractApp<T>(fn: (app: GatehouseApp) => Promise<T> | T): Promise<T> {
  const configured = loadCliSettings()
  const settings = { ...configured, databaseUrl: 'sqlite::memory:', redisUrl: undefined }
  const built = await buildApp({ settings, logger: pino({ level: 'silent' }), webhookWorker: false })
  try {
    return await fn(built)
  } finally {
    await built.close()
  }
}
