import type { Client } from './client.js';

/**
 * The parts of an Express request we read, written out so this package needs neither express nor
 * its types at runtime or in a customer's build. Express 4 and 5 requests both fit.
 */
export interface ExpressLikeRequest {
  method: string;
  path: string;
  originalUrl: string;
  baseUrl: string;
  protocol: string;
  route?: { path?: unknown } | undefined;
  get(name: string): string | undefined;
}

export type ExpressLikeNext = (error?: unknown) => void;

/** A pattern with no wildcard or optional part has exactly one path segment per segment. */
const PLAIN_PATTERN = /^[^*{}()?+]*$/;

/**
 * The router's mount path. Inside the router it is req.baseUrl; but an error handler mounted on
 * the app runs after the router has restored baseUrl to '', while req.route still is the inner
 * route. Then, for a plain pattern, the mount path is what precedes the pattern's segments in
 * req.path (its actual values: a mount path with a parameter shows the value, not `:name`).
 */
function mountPathOf(req: ExpressLikeRequest, pattern: string): string {
  if (req.baseUrl) return req.baseUrl;
  if (!PLAIN_PATTERN.test(pattern)) return '';
  const segments = req.path.split('/').filter((s) => s !== '');
  const outer = segments.length - pattern.split('/').filter((s) => s !== '').length;
  return outer > 0 ? `/${segments.slice(0, outer).join('/')}` : '';
}

/** The route pattern that matched (`/orders/:id`), joined to the router's mount path. */
function routeOf(req: ExpressLikeRequest): string | undefined {
  const path = req.route?.path;
  // Express also takes a RegExp (kept as its source) or an array of patterns as a route's path.
  if (path instanceof RegExp) return path.toString();
  if (Array.isArray(path)) return path.map(String).join(', ');
  if (typeof path !== 'string') return undefined;
  return `${mountPathOf(req, path)}${path}`;
}

/**
 * Errors already reported by one of these handlers: mounted in a router and again on the app, the
 * same error passes both (we call next(error)) and must be one occurrence, not two.
 */
const reported = new WeakSet<object>();

/**
 * Express error-handling middleware (four parameters: Express tells error handlers apart by arity,
 * so no parameter may have a default). Captures, then passes the error on so the app's own error
 * handler still answers. `client` is read at error time, so this can be mounted before init().
 */
export function expressErrorHandler(client?: Client | (() => Client | undefined)) {
  return function ferryErrorHandler(
    error: unknown,
    req: ExpressLikeRequest,
    _res: unknown,
    next: ExpressLikeNext,
  ): void {
    try {
      const seen = typeof error === 'object' && error !== null;
      if (seen && reported.has(error)) {
        next(error);
        return;
      }
      if (seen) reported.add(error);
      const target = typeof client === 'function' ? client() : client;
      const route = routeOf(req);
      target?.captureException(error, route === undefined ? {} : { route }, {
        request_method: req.method,
        // Inside a router req.path is relative to its mount; the report wants the whole path.
        request_path: `${req.baseUrl ?? ''}${req.path}`,
        url: `${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`,
      });
    } catch {
      // reading an odd request failed: the app's handler still gets the error below
    }
    next(error);
  };
}
