// Login, logout and the stylesheet. Login checks, in order: the form's CSRF value against
// its cookie, the throttle (the attempt is counted before any password work, so parallel
// guesses cannot outrun it), then the scrypt hash. Every failure looks the same whether the
// name exists or not.
import type { FastifyInstance, FastifyReply } from 'fastify'
import { verifyAdminLogin } from '../auth/admin-accounts.js'
import { textProblem } from '../store/validation.js'
import { html, plural } from './html.js'
import { PANEL_BASE } from './layout.js'
import { LOGIN_CSRF_COOKIE, readCookie, serializeCookie } from './cookies.js'
import { CSRF_FIELD, newToken, tokensMatch } from './csrf.js'
import { formOf, renderPage, safeNext, sessionOf, type PanelContext } from './panel-context.js'
import type { LoginThrottle } from '../auth/login-throttle.js'
import { FAVICON_SVG, PANEL_CSS } from './styles.js'

const LOGIN_PATH = `${PANEL_BASE}/login`

export async function loginRoutes(panel: FastifyInstance, ctx: PanelContext, throttle: LoginThrottle): Promise<void> {
  const { sessions, services } = ctx
  const publicRoute = { config: { panelPublic: true } }

  panel.get('/assets/panel.css', publicRoute, async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=3600').type('text/css; charset=utf-8').send(PANEL_CSS))
  // Served here so browsers do not ask the site root for /favicon.ico.
  panel.get('/assets/favicon.svg', publicRoute, async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(FAVICON_SVG))

  const loginForm = (token: string, next: string, username = '') => html`<section class="login"><h1>Control panel</h1>
    <form method="post" action="${LOGIN_PATH}">
      <input type="hidden" name="${CSRF_FIELD}" value="${token}"><input type="hidden" name="next" value="${next}">
      <label>Username <input type="text" name="username" value="${username}" autocomplete="username" required maxlength="100" autofocus></label>
      <label>Password <input type="password" name="password" autocomplete="current-password" required maxlength="1024"></label>
      <p><button type="submit">Log in</button></p>
    </form><p class="muted">Admins are created with <code>gatehouse admin create --username NAME</code>.</p></section>`

  // A fresh login-CSRF value per form, bound to this browser by its cookie.
  const freshToken = (reply: FastifyReply) => {
    const token = newToken()
    reply.header('Set-Cookie', serializeCookie(LOGIN_CSRF_COOKIE, token, { path: LOGIN_PATH, secure: sessions.secure, maxAge: 3600 }))
    return token
  }

  panel.get('/login', publicRoute, async (request, reply) => {
    const next = safeNext((request.query as { next?: unknown }).next)
    if (await sessions.resolve(request)) return reply.redirect(next, 303)
    return renderPage(ctx, request, reply, { title: 'Log in' }, loginForm(freshToken(reply), next))
  })

  panel.post('/login', publicRoute, async (request, reply) => {
    const form = formOf(request)
    const next = safeNext(form.get('next'))
    const given = (form.get('username') ?? '').trim().slice(0, 100)
    // A name no admin can have (NUL, a lone surrogate: the database cannot even compare it)
    // gets the same refusal as any unknown name, counted under a storable spelling of it.
    const storable = textProblem(given) === undefined
    const username = storable ? given : given.replaceAll('\u0000', '\uFFFD').replace(/\p{Cs}/gu, '\uFFFD')
    const password = form.get('password') ?? ''
    if (!tokensMatch(form.get(CSRF_FIELD), readCookie(request, LOGIN_CSRF_COOKIE))) {
      return renderPage(ctx, request, reply, { title: 'Log in', flash: { kind: 'error', text: 'The login form expired. Please try again.' } },
        loginForm(freshToken(reply), next, username), 403)
    }
    const wait = await throttle.reserve(request.ip, username)
    if (wait > 0) {
      reply.header('Retry-After', String(wait))
      return renderPage(ctx, request, reply, { title: 'Log in', flash: { kind: 'error', text: `Too many failed logins. Try again in ${plural(Math.ceil(wait / 60), 'minute', 'minutes')}.` } },
        loginForm(freshToken(reply), next, username), 429)
    }
    const account = storable && username && password ? await verifyAdminLogin(services.database.db, username, password) : undefined
    // A failure stays counted (reserved above).
    if (!account) {
      return renderPage(ctx, request, reply, { title: 'Log in', flash: { kind: 'error', text: 'Unknown username or wrong password.' } },
        loginForm(freshToken(reply), next, username), 401)
    }
    await throttle.succeeded(request.ip, username)
    // A new session id at every login: an id planted before login is never promoted.
    reply.header('Set-Cookie', [
      await sessions.create(account.username),
      serializeCookie(LOGIN_CSRF_COOKIE, '', { path: LOGIN_PATH, secure: sessions.secure, maxAge: 0 }),
    ])
    return reply.redirect(next, 303)
  })

  panel.post('/logout', async (request, reply) => {
    await sessions.destroy(sessionOf(request))
    reply.header('Set-Cookie', sessions.clearCookie())
    return reply.redirect(LOGIN_PATH, 303)
  })
}
