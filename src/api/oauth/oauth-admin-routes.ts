// Sign-in for agents on the admin API: which credentials OAuth consents created, for which
// client, granted by whom. The credentials themselves are paused, narrowed (PATCH scopes,
// boundaries, allowlist, expiry) and revoked through /credentials like any other; revoking
// one ends its grants' tokens at once.
import { sendAdminData, type AdminRoutes } from '../admin/admin-route.js'

export const oauthAdminRoutes: AdminRoutes = (admin, { services }) => {
  admin.get('/oauth/grants', async (request, reply) => sendAdminData(reply, request, await services.oauth.grants()))
}
