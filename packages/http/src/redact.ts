/**
 * Secrets in URLs never reach a log line. Routes declare the path params and query keys that carry
 * secrets where they are declared (route-table.ts registers them here as they are mounted), so a
 * new route is covered by saying so, not by editing a list of prefixes. Query values whose name
 * says they are credentials are redacted on every path as a second line of defence, and a query
 * value that is itself a path (`/login?next=/invite/inv_…`) is redacted by the same rules.
 */

/** A registered pattern, segment by segment: a literal, or a param that is secret or not. */
interface SecretRoute {
  pattern: string;
  segments: ({ literal: string } | { secret: boolean })[];
  query: readonly string[];
}

const secretRoutes: SecretRoute[] = [];

const CREDENTIAL_QUERY = new Set([
  'access_token',
  'token',
  'key',
  'secret',
  'password',
  'api_key',
  'code',
  'state',
  'sentry_key',
]);

const REDACTED = '[redacted]';

/**
 * Registers a route pattern (`/invite/:token`) whose params or query keys are secret. Literal
 * segments match case-insensitively, as Express routes do; registering a pattern again is a no-op.
 */
export function registerSecretRoute(
  pattern: string,
  secrets: { params?: readonly string[]; query?: readonly string[] },
): void {
  if (secretRoutes.some((route) => route.pattern === pattern)) return;
  const params = secrets.params ?? [];
  const segments = pattern.split('/').map((segment) => {
    const param = /^:(\w+)$/.exec(segment);
    return param ? { secret: params.includes(param[1]!) } : { literal: segment.toLowerCase() };
  });
  secretRoutes.push({ pattern, segments, query: secrets.query ?? [] });
}

function redactPathname(pathname: string): { pathname: string; query: readonly string[] } {
  const parts = pathname.replace(/(.)\/$/, '$1').split('/');
  for (const route of secretRoutes) {
    // Longer paths match too: a secret segment stays secret under a path no route answers.
    if (route.segments.length > parts.length) continue;
    const fits = route.segments.every((segment, i) =>
      'literal' in segment ? segment.literal === parts[i]!.toLowerCase() : parts[i] !== '',
    );
    if (!fits) continue;
    const redacted = parts.map((part, i) => {
      const segment = route.segments[i];
      return segment && 'secret' in segment && segment.secret ? REDACTED : part;
    });
    return { pathname: redacted.join('/'), query: route.query };
  }
  return { pathname, query: [] };
}

function redactQuery(query: string, secretKeys: readonly string[], depth: number): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const key = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let name = key;
      try {
        name = decodeURIComponent(key);
      } catch {
        // An undecodable name is logged as it came.
      }
      if (secretKeys.includes(name) || CREDENTIAL_QUERY.has(name.toLowerCase())) {
        return `${key}=${REDACTED}`;
      }
      let decoded: string;
      try {
        decoded = decodeURIComponent(value.replace(/\+/g, ' '));
      } catch {
        return pair;
      }
      if (depth < 2 && decoded.startsWith('/')) {
        const inner = redactUrl(decoded, depth + 1);
        if (inner !== decoded) return `${key}=${encodeURIComponent(inner)}`;
      }
      return pair;
    })
    .join('&');
}

function redactUrl(url: string, depth: number): string {
  const hashAt = url.indexOf('#');
  const withoutHash = hashAt < 0 ? url : url.slice(0, hashAt);
  const queryAt = withoutHash.indexOf('?');
  const rawPath = queryAt < 0 ? withoutHash : withoutHash.slice(0, queryAt);
  const rawQuery = queryAt < 0 ? undefined : withoutHash.slice(queryAt + 1);
  const hash = hashAt < 0 ? '' : url.slice(hashAt);
  const { pathname, query } = redactPathname(rawPath);
  return rawQuery === undefined
    ? pathname + hash
    : `${pathname}?${redactQuery(rawQuery, query, depth)}${hash}`;
}

/** A URL (path and query, or a whole `Location`) fit for a log line. */
export function redactPath(url: string): string {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(url)?.[0] ?? '';
  return origin + redactUrl(url.slice(origin.length), 0);
}
