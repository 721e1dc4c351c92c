// The page frame: navigation, the signed-in admin, the flash message and the logout form.
// Every page of the panel is rendered through `page()`, so the stylesheet link and the
// CSRF meta tag (for scripts calling the admin API with the session) are in one place.
// The navigation is not a hand-written list: it is every screen registered (a GET route
// with `config.screen`), so a new screen appears by registering itself.
import { html, type Html } from './html.js'
import type { Flash, PanelSession } from './panel-sessions.js'
import { CSRF_FIELD } from './csrf.js'

export const PANEL_BASE = '/gatehouse/cp'

/** A screen in the navigation, from its route's `config.screen`. */
export interface NavScreen {
  readonly path: string
  readonly title: string
  /** Position in the navigation, lowest first (Status 10 … Audit 90; Jobs 50). */
  readonly order: number
}

export interface PageOptions {
  readonly title: string
  readonly session?: PanelSession
  /** The page's path, to mark its screen in the navigation. */
  readonly path?: string
  readonly screens?: readonly NavScreen[]
  readonly flash?: Flash | null
}

/** A hidden CSRF field for a signed-in form. */
export const csrfField = (session: PanelSession): Html => html`<input type="hidden" name="${CSRF_FIELD}" value="${session.csrfToken}">`

/** A one-button POST form (every state change in the panel is a POST with the CSRF token). */
/** `ariaLabel`: what a button repeated on every row acts on (`End session ses_…`), for screen readers. */
export function postButton(session: PanelSession, action: string, label: string, opts: { danger?: boolean; disabled?: boolean; hidden?: Record<string, string>; ariaLabel?: string } = {}): Html {
  const hidden = Object.entries(opts.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)
  return html`<form method="post" action="${action}">${csrfField(session)}${hidden}<button type="submit"${opts.danger ? html` class="danger"` : ''}${opts.disabled ? html` disabled` : ''}${opts.ariaLabel ? html` aria-label="${opts.ariaLabel}"` : ''}>${label}</button></form>`
}

/** The screen a path belongs to: the longest screen path it starts with. */
function currentScreen(screens: readonly NavScreen[], path: string | undefined): NavScreen | undefined {
  if (!path) return undefined
  return [...screens].filter((s) => path === s.path || path.startsWith(`${s.path}/`)).sort((a, b) => b.path.length - a.path.length)[0]
}

export function page(opts: PageOptions, body: Html): string {
  const s = opts.session
  const screens = opts.screens ?? []
  const current = currentScreen(screens, opts.path)
  const head = s
    ? html`<span class="who"><span class="muted">${s.username}</span>${postButton(s, `${PANEL_BASE}/logout`, 'Log out')}</span>
      <nav aria-label="Screens">${screens.map((x) => html`<a href="${x.path}"${x === current ? html` aria-current="page"` : ''}>${x.title}</a>`)}</nav>`
    : ''
  const flash = opts.flash ? html`<div class="flash ${opts.flash.kind}" role="status">${opts.flash.text}</div>` : ''
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · Gatehouse</title>
<link rel="stylesheet" href="${PANEL_BASE}/assets/panel.css"><link rel="icon" href="${PANEL_BASE}/assets/favicon.svg" type="image/svg+xml">${s ? html`<meta name="csrf-token" content="${s.csrfToken}">` : ''}
</head><body><header><a class="brand" href="${PANEL_BASE}/status">Gatehouse</a>${head}</header>
<main>${flash}${body}</main></body></html>`.text
}
