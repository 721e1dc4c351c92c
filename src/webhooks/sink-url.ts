// Where the dev test sink listens, and whether a URL points at it.
import type { Settings } from '../settings.js'

export const SINK_PATH = '/gatehouse/dev/webhook-test-sink'

export function sinkEnabled(settings: Settings): boolean {
  return settings.devMode && settings.webhookTestSink
}

/** The sink's address: the configured webhook URL when it already points there, else on BASE_URL. */
export function sinkUrl(settings: Settings): string {
  if (settings.webhookUrl && new URL(settings.webhookUrl).pathname === SINK_PATH) return settings.webhookUrl
  return settings.baseUrl + SINK_PATH
}
