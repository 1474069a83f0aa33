import type { NextFunction, Request, RequestHandler, Response } from 'express';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { PreparedRoute } from './route-table.js';

/**
 * Issue 48: the hot routes (error ingestion, incoming webhooks) answered before the express
 * stack (app.ts answerHotRoutesFirst runs what this finds at the app's entry). Express walks every router a request could enter, layer by layer (each a regular
 * expression, a closure and a promise), through the service routers nested in `pnpm start`'s app;
 * on an incoming post that walk was about a tenth of the app's CPU. Here one radix-tree lookup
 * (find-my-way) finds the route and its handlers run in a row, the very handlers `mount` built
 * from the route table (markPattern, the body deadline, the access rule's `enforce`, `before`,
 * validation, the handler), with express's rules for them: `next(error)`, a thrown error or a
 * rejected promise goes to the app's error handler.
 *
 * Anything this does not match goes on to the express routers as before, which also hold these
 * routes: a path with a percent sign (express matches the encoded path, find-my-way decodes it), a
 * parameter longer than find-my-way's limit, a method the route does not take. So every request
 * gets the answer it got before, only sooner.
 */

/** Set on a request whose route ran here, so the same route in the express routers is skipped. */
const DISPATCHED = Symbol('hot-dispatched');

type Dispatched = Request & { [DISPATCHED]?: true };

export function wasDispatched(req: Request): boolean {
  return (req as Dispatched)[DISPATCHED] === true;
}

/** Runs the handlers in order, as an express route does; `done` gets what the last passes on. */
export function runHandlers(
  handlers: readonly RequestHandler[],
  req: Request,
  res: Response,
  done: NextFunction,
): void {
  let index = 0;
  const next: NextFunction = (error?: unknown) => {
    // `next('route')` / `next('router')` leave the route, as in express.
    if (error !== undefined && error !== null) {
      done(error === 'route' || error === 'router' ? undefined : error);
      return;
    }
    const handler = handlers[index++];
    if (!handler) {
      done();
      return;
    }
    try {
      const returned: unknown = handler(req, res, next);
      if (returned instanceof Promise) {
        returned.then(undefined, (rejection: unknown) => {
          next(rejection ?? new Error('Rejected promise'));
        });
      }
    } catch (thrown) {
      next(thrown);
    }
  };
  next();
}

/** What a request takes here: its route's handlers (after `before`) and the path's parameters. */
export interface HotMatch {
  handlers: readonly RequestHandler[];
  params: Record<string, string>;
}

export interface HotDispatch {
  /** The route `req` takes here, or undefined: it goes to the express routers as before. */
  match(req: { method?: string | undefined; url?: string | undefined }): HotMatch | undefined;
}

/**
 * The lookup for `routes`, or undefined when there are none. `before` (the app's own middleware:
 * request id, metrics, body deadline) runs ahead of each route's handlers, as it would in express.
 */
export function hotDispatch(
  routes: readonly PreparedRoute[],
  before: readonly RequestHandler[] = [],
): HotDispatch | undefined {
  if (!routes.length) return undefined;
  const routers = {
    sensitive: FindMyWay({ caseSensitive: true, ignoreTrailingSlash: true }),
    insensitive: FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true }),
  };
  const noop = (): void => undefined;
  const hasRoutes = { sensitive: false, insensitive: false };
  for (const route of routes) {
    const which = route.caseSensitive ? 'sensitive' : 'insensitive';
    hasRoutes[which] = true;
    const handlers: readonly RequestHandler[] = [...before, ...route.handlers];
    routers[which].on(route.method.toUpperCase() as HTTPMethod, route.pattern, noop, handlers);
  }
  const lookup = (method: HTTPMethod, path: string) =>
    (hasRoutes.sensitive ? routers.sensitive.find(method, path) : null) ??
    (hasRoutes.insensitive ? routers.insensitive.find(method, path) : null);

  return {
    match(req) {
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const path = query === -1 ? url : url.slice(0, query);
      if (path.includes('%')) return undefined;
      const found = lookup(req.method as HTTPMethod, path);
      if (!found) return undefined;
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(found.params)) if (value) params[name] = value;
      return { handlers: found.store as readonly RequestHandler[], params };
    },
  };
}

/** Marks `req` as answered by a hot route, so the express routers skip that route. */
export function markDispatched(req: Request): void {
  (req as Dispatched)[DISPATCHED] = true;
}
