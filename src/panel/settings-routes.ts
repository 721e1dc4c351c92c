// The Settings screen, and the docs/configuration.md it links to (served as plain text from
// the installed package, so the link works offline like the rest of the panel).
import type { FastifyInstance } from 'fastify'
import { readFile } from 'node:fs/promises'
import { notFound } from '../kernel/errors.js'
import { renderPage, type PanelContext } from './panel-context.js'
import { settingEntries } from './setting-entries.js'
import { settingsView } from './views/settings-view.js'

// src/panel/ and dist/panel/ are both two levels below the package root.
const CONFIGURATION_DOC = new URL('../../docs/configuration.md', import.meta.url)

export async function settingsRoutes(panel: FastifyInstance, ctx: PanelContext): Promise<void> {
  const { settings } = ctx.services
  panel.get('/settings', { config: { screen: { title: 'Settings', order: 95 } } }, async (request, reply) =>
    renderPage(ctx, request, reply, { title: 'Settings' }, settingsView(settingEntries(settings), settings.warnings)))

  panel.get('/settings/configuration.md', async (_request, reply) => {
    const text = await readFile(CONFIGURATION_DOC, 'utf8').catch(() => {
      throw notFound('docs/configuration.md is not installed with this copy of Gatehouse')
    })
    return reply.type('text/plain; charset=utf-8').send(text)
  })
}
