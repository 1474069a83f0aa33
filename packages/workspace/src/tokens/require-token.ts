import type { RequestHandler, Response } from 'express';
import { AppError } from '@ferry/core';
import type { ApiToken, TokenScope, Workspace } from '@ferry/db';
import type { Db } from '@ferry/db';
import type { Logger } from '@ferry/core';
import { findLiveToken, grantsScope, touchToken } from './tokens.js';

/** What an API handler can rely on after `requireToken` ran. */
export interface ApiLocals {
  apiToken?: ApiToken;
  apiWorkspace?: Workspace;
}

/**
 * The workspace the bearer token authenticates, and the token itself. A token stands for a
 * workspace, never a person: API handlers have no member or user to act as.
 */
export function apiAuth(res: Response): { workspace: Workspace; token: ApiToken } {
  const { apiToken, apiWorkspace } = res.locals as ApiLocals;
  if (!apiToken || !apiWorkspace) throw new Error('requireToken middleware missing');
  return { workspace: apiWorkspace, token: apiToken };
}

const REALM = 'realm="ferry"';

/** RFC 6750: a request without credentials gets a bare challenge; a bad credential names why. */
function invalidToken(message: string, presented: boolean): AppError {
  return new AppError('invalid_token', message, {
    headers: {
      'WWW-Authenticate': presented ? `Bearer ${REALM}, error="invalid_token"` : `Bearer ${REALM}`,
    },
  });
}

/** `Bearer <token>`; the scheme is case-insensitive (RFC 7235). Anything else is malformed. */
function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer +([^\s]+) *$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * Authenticates `Authorization: Bearer <API token>` and checks its scope. Given several scopes, any
 * one of them is enough; `tenant:write` also grants `tenant:read`. 401 `invalid_token` for a
 * missing, malformed, unknown or revoked token (all alike, so probing learns nothing), 403
 * `insufficient_scope` naming the scope for a valid token without it.
 */
export function requireToken(
  { db, logger }: { db: Db; logger: Logger },
  scope: TokenScope | readonly TokenScope[],
): RequestHandler {
  const needed: readonly TokenScope[] = typeof scope === 'string' ? [scope] : scope;
  return async (req, res, next) => {
    const header = req.get('authorization');
    if (!header) {
      throw invalidToken(
        'Send an API token in the Authorization header: "Authorization: Bearer <token>".',
        false,
      );
    }
    const raw = bearer(header);
    const found = raw ? await findLiveToken(db, raw) : undefined;
    if (!found) {
      throw invalidToken(
        'This API token is not valid: it is malformed, unknown or revoked. Create a new one on the API tokens page.',
        true,
      );
    }
    const { token, workspace } = found;
    // The token authenticated, even if it lacks the scope: that counts as use. Bookkeeping must
    // never fail the call it is recording.
    try {
      await touchToken(db, token);
    } catch (err) {
      logger.warn({ err, tokenId: token.id }, 'could not record API token use');
    }
    if (!needed.some((s) => grantsScope(token.scopes, s))) {
      const names = needed.map((s) => `"${s}"`).join(' or ');
      throw new AppError(
        'insufficient_scope',
        `This API token lacks the ${names} scope needed here. Create a token with ${names}.`,
        {
          headers: {
            'WWW-Authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${needed.join(' ')}"`,
          },
        },
      );
    }
    const locals = res.locals as ApiLocals;
    locals.apiToken = token;
    locals.apiWorkspace = workspace;
    next();
  };
}
