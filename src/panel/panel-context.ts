// What a file of panel routes receives, and the two ways a handler answers: render a page
// (taking the session's pending flash message), or record a message and redirect (303) so
// a reload never repeats an action.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from '../operations/services.js'
import type { Readiness } from '../operations/readiness.js'
import type { IncidentMonitor } from '../ops/incident-monitor.js'
import type { Html } from './html.js'
import { page, PANEL_BASE, type NavScreen, type PageOptions } from './layout.js'
import type { Flash, PanelSession, PanelSessions } from './panel-sessions.js'

declare module 'fastify' {
  interface FastifyRequest {
    panelSession?: PanelSession
  }
  interface FastifyContextConfig {
    /** Served without a session (login page, stylesheet). */
    panelPublic?: boolean
    /** A GET route with this is a screen: it appears in the navigation, ordered by `order`. */
    screen?: { readonly title: string; readonly order: number }
  }
}

export interface PanelContext {
  readonly services: Services
  readonly sessions: PanelSessions
  /** The readiness verdict with this process's incident monitor. */
  readonly readiness: () => Promise<Readiness>
  /** This process's incident monitor (evaluated before the Incidents screen is shown). */
  readonly monitor: IncidentMonitor
  /** Screens in the navigation: filled as screen routes register, in order. */
  readonly screens: readonly NavScreen[]
}

/** The signed-in session (the plugin's hook has already redirected requests without one). */
export function sessionOf(request: FastifyRequest): PanelSession {
  const s = request.panelSession
  if (!s) throw new Error('panel route reached without a session')
  return s
}

export async function renderPage(ctx: PanelContext, request: FastifyRequest, reply: FastifyReply,
  opts: Omit<PageOptions, 'session' | 'screens' | 'flash' | 'path'> & { flash?: Flash }, body: Html, status = 200): Promise<FastifyReply> {
  const session = request.panelSession
  const flash = opts.flash ?? (session ? await ctx.sessions.takeFlash(session) : null)
  const path = request.url.split('?')[0]
  return reply.code(status).type('text/html; charset=utf-8').send(page({ ...opts, session, screens: ctx.screens, flash, path }, body))
}

/** Records `flash` for the next page and redirects there (303 See Other). */
export async function redirectWith(ctx: PanelContext, request: FastifyRequest, reply: FastifyReply, flash: Flash, to: string): Promise<FastifyReply> {
  await ctx.sessions.setFlash(sessionOf(request), flash)
  return reply.redirect(to.startsWith('/') ? to : `${PANEL_BASE}/${to}`, 303)
}

/** Form fields of a POST (the panel's parser gives URLSearchParams; anything else is empty). */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams()
}

/** Where the login page sends the admin afterwards: only a path inside the panel. */
export function safeNext(value: unknown): string {
  return typeof value === 'string' && NEXT.test(value) && !/\/\.\.?(\/|\?|$)/.test(value) ? value : `${PANEL_BASE}/status`
}

/**
 * A panel path, with its query: segments of unreserved characters, `@` and percent escapes
 * (admins' names hold `.` and `@`: `/accounts/admins/eve@x.io`), never `//`, `\` or a scheme,
 * so the login can only send the browser back into the panel.
 */
const NEXT = /^\/gatehouse\/cp(\/[A-Za-z0-9._~@%-]+)*\/?(\?[A-Za-z0-9._~%&=+,:@-]*)?$/
