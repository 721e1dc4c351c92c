// Where the dev test sink listens, and whether a URL points at it.
import type { Settings } from '../kernel/settings.js'
import { pointsAtSink, SINK_PATH } from '../kernel/sink-path.js'

export function sinkEnabled(settings: Settings): boolean {
  return settings.devMode && settings.webhookTestSink
}

/** The sink's address: the configured webhook URL when it already points there, else on BASE_URL. */
export function sinkUrl(settings: Settings): string {
  if (settings.webhookUrl && pointsAtSink(settings.webhookUrl)) return settings.webhookUrl
  return settings.baseUrl + SINK_PATH
}
