// The admins part of the Accounts screen: every control-panel admin with its live sessions,
// an admin's page (its sessions, each with *End*, *End all sessions*, *Delete admin…*) and the
// confirmation before a deletion. Sessions are named by their ses_… id, never by the cookie.
import { html, when, type Html } from '../html.js'
import { PANEL_BASE, postButton } from '../layout.js'
import type { PanelSession } from '../panel-sessions.js'
import type { AdminAccountInfo, AdminSessionInfo } from '../../operations/admin-accounts.js'
import { cell } from './format.js'

const adminPath = (username: string) => `${PANEL_BASE}/accounts/admins/${encodeURIComponent(username)}`

export function adminListView(admins: readonly AdminAccountInfo[]): Html {
  return html`<section id="admins"><h2>Control-panel admins</h2>
    <p class="muted">People who sign in to this panel. Add one with <code>gatehouse admin create --username NAME</code>.</p>
    <table class="cards"><thead><tr><th>Username</th><th>Created</th><th>Live sessions</th></tr></thead><tbody>
    ${admins.map((a) => html`<tr>${cell('Username', html`<a href="${adminPath(a.username)}">${a.username}</a>`)}${cell('Created', when(a.createdAt))}${cell('Live sessions', String(a.liveSessions))}</tr>`)}
    </tbody></table></section>`
}

export function adminDetailView(s: PanelSession, account: AdminAccountInfo, sessions: readonly AdminSessionInfo[], isLast: boolean): Html {
  const base = adminPath(account.username)
  return html`<h1>Admin ${account.username}</h1><section><dl class="kv"><dt>Created</dt><dd>${when(account.createdAt)}</dd><dt>Live sessions</dt><dd>${String(sessions.length)}</dd></dl>
    <div class="actions">${sessions.length > 0 ? postButton(s, `${base}/sessions/end-all`, 'End all sessions', { danger: true }) : ''}
    ${isLast ? html`<span class="muted">The last admin cannot be deleted: create another one first.</span>` : html`<a href="${base}/confirm-delete">Delete admin…</a>`}</div></section>
    <section><h2>Sessions</h2>
    <table class="cards"><thead><tr><th>Session</th><th>Started</th><th>Last seen</th><th>Expires</th><th></th></tr></thead><tbody>
    ${sessions.map((x) => html`<tr>${cell('Session', html`<code>${x.id}</code>${x.current ? html` <span class="badge active">this session</span>` : ''}`)}
      ${cell('Started', when(x.createdAt))}${cell('Last seen', when(x.lastSeenAt))}${cell('Expires', when(x.expiresAt))}
      ${cell('', postButton(s, `${base}/sessions/end`, 'End', { danger: true, hidden: { id: x.id }, ariaLabel: `End session ${x.id}` }))}</tr>`)}
    </tbody></table>${sessions.length === 0 ? html`<p class="muted">No live sessions.</p>` : ''}</section>
    <p><a href="${PANEL_BASE}/accounts#admins">All accounts</a></p>`
}

export function adminDeleteConfirmView(s: PanelSession, account: AdminAccountInfo, self: boolean): Html {
  const base = adminPath(account.username)
  return html`<h1>Delete admin ${account.username}</h1><section>
    <p>The account is removed and its ${String(account.liveSessions)} live session${account.liveSessions === 1 ? '' : 's'} ended at once; this cannot be undone.${self ? ' This is your own account: you will be signed out.' : ''}</p>
    <div class="actions">${postButton(s, `${base}/delete`, 'Delete admin', { danger: true })}<a href="${base}">Cancel</a></div></section>`
}
