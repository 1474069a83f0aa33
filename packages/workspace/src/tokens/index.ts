export { apiAuth, requireToken } from './require-token.js';
export type { ApiLocals } from './require-token.js';
export {
  LAST_USED_RESOLUTION_MS,
  TOKEN_KIND,
  TOKEN_SCOPES,
  createToken,
  createTokenSchema,
  findLiveToken,
  findToken,
  grantsScope,
  listTokens,
  looksLikeToken,
  revokeToken,
  revokeTokensOf,
  touchToken,
} from './tokens.js';
export type { AuthenticatedToken, CreateTokenInput, TokenListItem } from './tokens.js';
