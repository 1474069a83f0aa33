import type { Request } from 'express';

/**
 * The public key a Sentry SDK sends, wherever it sends it: `?sentry_key=` (browser SDKs and
 * @sentry/node put it in the query), `X-Sentry-Auth: Sentry sentry_key=…, sentry_version=7, …`
 * (sentry-python, raven) or `Authorization: Sentry …`. A secret key some old clients add is not
 * read: Ferry's workspace key is public.
 */
export function sentryKey(req: Request): string | undefined {
  const fromQuery = req.query.sentry_key;
  if (typeof fromQuery === 'string' && fromQuery) return fromQuery;
  for (const header of [req.get('X-Sentry-Auth'), req.get('Authorization')]) {
    const key = header ? authField(header, 'sentry_key') : undefined;
    if (key) return key;
  }
  return undefined;
}

/** `Sentry a=1, b=2` -> the value of one field. */
function authField(header: string, name: string): string | undefined {
  const match = /^\s*sentry\s+(.*)$/is.exec(header);
  if (!match) return undefined;
  for (const part of match[1]!.split(',')) {
    const [key, ...value] = part.split('=');
    if (key?.trim() === name) return value.join('=').trim() || undefined;
  }
  return undefined;
}
