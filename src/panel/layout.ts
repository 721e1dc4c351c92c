// The page frame: navigation, the signed-in admin, the flash message and the logout form.
// Every page of the panel is rendered through `page()`, so the stylesheet link and the
// CSRF meta tag (for scripts calling the admin API with the session) are in one place.
import { html, type Html } from './html.js'
import type { Flash, PanelSession } from './panel-sessions.js'
import { CSRF_FIELD } from './csrf.js'

export const PANEL_BASE = '/gatehouse/cp'

export type Screen = 'status' | 'accounts' | 'jobs' | 'approvals' | 'audit'

export interface PageOptions {
  readonly title: string
  readonly session?: PanelSession
  readonly active?: Screen
  /** Screens shown in the navigation (Approvals and Audit only when the control plane is on). */
  readonly screens?: readonly Screen[]
  readonly flash?: Flash | null
}

const SCREEN_TITLES: Record<Screen, string> = { status: 'Status', accounts: 'Accounts', jobs: 'Jobs', approvals: 'Approvals', audit: 'Audit' }

/** A hidden CSRF field for a signed-in form. */
export const csrfField = (session: PanelSession): Html => html`<input type="hidden" name="${CSRF_FIELD}" value="${session.csrfToken}">`

/** A one-button POST form (every state change in the panel is a POST with the CSRF token). */
export function postButton(session: PanelSession, action: string, label: string, opts: { danger?: boolean; disabled?: boolean; hidden?: Record<string, string> } = {}): Html {
  const hidden = Object.entries(opts.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)
  return html`<form method="post" action="${action}">${csrfField(session)}${hidden}<button type="submit"${opts.danger ? html` class="danger"` : ''}${opts.disabled ? html` disabled` : ''}>${label}</button></form>`
}

export function page(opts: PageOptions, body: Html): string {
  const s = opts.session
  const nav = s
    ? html`<nav>${(opts.screens ?? ['status', 'accounts']).map((k) => html`<a href="${PANEL_BASE}/${k}"${opts.active === k ? html` aria-current="page"` : ''}>${SCREEN_TITLES[k]}</a>`)}</nav>
      <span class="muted">${s.username}</span>${postButton(s, `${PANEL_BASE}/logout`, 'Log out')}`
    : ''
  const flash = opts.flash ? html`<div class="flash ${opts.flash.kind}" role="status">${opts.flash.text}</div>` : ''
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · Gatehouse</title>
<link rel="stylesheet" href="${PANEL_BASE}/assets/panel.css"><link rel="icon" href="${PANEL_BASE}/assets/favicon.svg" type="image/svg+xml">${s ? html`<meta name="csrf-token" content="${s.csrfToken}">` : ''}
</head><body><header><span class="brand">Gatehouse</span>${nav}</header>
<main>${flash}${body}</main></body></html>`.text
}
