// The published shape of managed tokens: `gth_` + 32 random bytes in base64url (43 characters).
// Tokens kept in configuration (PLUGIN_GATEHOUSE_API_CREDENTIALS, _API_TOKEN) may be any string.
import { TOKEN_PREFIX } from '../auth/tokens.js'

export const TOKEN_FORMAT = Object.freeze({
  prefix: TOKEN_PREFIX,
  pattern: `^${TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`,
  description: `${TOKEN_PREFIX} followed by 43 base64url characters (256 random bits)`,
})
