import type { RequestHandler } from 'express';
import { AppError } from '@ferry/core';

/**
 * The endpoints that customers' pages and apps call with a workspace public key (the widget's API,
 * error ingestion in every wire format) share three answers, so they are made here once:
 *
 * - CORS: any origin, no credentials, on every answer (errors included: a page must be able to
 *   read a 429 and its headers), and the preflight answered at once with 204.
 * - The tenant lookup: a public key -> its workspace, or the route's own refusal.
 * - The 429: Retry-After always, plus whatever the wire format adds (Sentry's rate-limit header).
 *
 * The key is not a secret (it is in the page's snippet), so nothing here reads data back.
 */
export interface PublicKeyApiOptions {
  /** Request headers a page may send (the preflight's Access-Control-Allow-Headers). */
  allowHeaders: readonly string[];
  /** Response headers a page may read besides the CORS-safelisted ones. */
  exposeHeaders?: readonly string[];
  /** How long a browser may cache the preflight. */
  maxAgeSeconds?: number;
  /** The public key -> workspace id lookup (a TenantCache from @ferry/workspace). */
  workspaceId: (publicKey: string) => Promise<string | undefined>;
  /** The answer when the key is missing or matches no workspace (each wire format says its own). */
  unknownKey: (publicKey: string | undefined) => AppError;
}

export interface PublicKeyApi {
  /** Sets the CORS headers on every answer; answers OPTIONS with 204 and nothing else. */
  cors: RequestHandler;
  /** The workspace of a public key, or throws the route's `unknownKey` refusal. */
  workspaceOf: (publicKey: string | undefined) => Promise<string>;
}

export function publicKeyApi(options: PublicKeyApiOptions): PublicKeyApi {
  const headers: Record<string, string> = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Allow-Headers': options.allowHeaders.join(', '),
    'Access-Control-Max-Age': String(options.maxAgeSeconds ?? 86_400),
  };
  if (options.exposeHeaders?.length) {
    headers['Access-Control-Expose-Headers'] = options.exposeHeaders.join(', ');
  }
  return {
    cors: (req, res, next) => {
      res.set(headers);
      if (req.method === 'OPTIONS') {
        res.status(204).end();
        return;
      }
      next();
    },
    workspaceOf: async (publicKey) => {
      const workspaceId = publicKey ? await options.workspaceId(publicKey) : undefined;
      if (!workspaceId) throw options.unknownKey(publicKey);
      return workspaceId;
    },
  };
}

/**
 * The one 429 of the public endpoints: `Retry-After` in whole seconds (at least 1), plus the wire
 * format's own headers (Sentry SDKs read `X-Sentry-Rate-Limits`).
 */
export function rateLimitedError(
  message: string,
  retryAfterSeconds: number,
  headers: Record<string, string> = {},
): AppError {
  return new AppError('rate_limited', message, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))), ...headers },
  });
}
