import { Router, type RequestHandler } from 'express';
import { useBodyTimeout, type BodyTimeout } from './body-deadline.js';
import { registerSecretRoute } from './redact.js';
import {
  conformResponses,
  noteUndocumentedInput,
  validateInput,
  type RouteDoc,
} from './route-doc.js';

/**
 * Routes declared as data: each feature lists its routes with who may call them, and `mount()`
 * builds the Express router from that list. The list is what tests walk (every mutating route has
 * an authorization rule; a role × action matrix over every entry) and what the request log's
 * redaction and the metrics' route labels read, so a route added here is covered by all of them.
 */

/** `options` is for CORS preflights: it never changes anything. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';

/** Who may call a route. `enforce` runs before the handler; the rest is for readers and tests. */
export interface Access {
  /**
   * - `capability`: a workspace seat whose role holds `rule` (the role table in @ferry/workspace).
   * - `seat`: any seat in the workspace; for reads (a mutating route may not use it).
   * - `self`: any seat, acting on their own things; the domain function named in `rule` decides
   *   (ranks, "yourself"), so no route can forget it.
   * - `user`: any signed-in user (no workspace yet: creating one, accepting an invite).
   * - `scope`: an API token with scope `rule`.
   * - `key`: a credential that is not a person: `rule` names it (public key, webhook key, agent
   *   token, visitor token, OAuth state).
   * - `public`: anyone; `rule` says why that is right.
   */
  kind: 'capability' | 'seat' | 'self' | 'user' | 'scope' | 'key' | 'public';
  rule: string;
  enforce: readonly RequestHandler[];
  /**
   * For a rule that `enforce` cannot check, because the check needs what only the handler has (a
   * refusal that must still carry CORS headers, a single-use state the handler consumes): the
   * function in the handler that checks it, so a reader knows where to look.
   */
  checkedBy?: string;
}

export interface RouteOptions {
  access: Access;
  /** A GET that writes on purpose (marks a room read, finishes an OAuth flow): says what. */
  writes?: string;
  /** Path params and query keys that carry secrets: redacted from every log line. */
  secrets?: { params?: readonly string[]; query?: readonly string[] };
  /**
   * How long the body may take to arrive when it is not the default's time (page forms, the JSON
   * API): `ingest` for reports and incoming webhooks, `upload` for bodies large on purpose. See
   * body-deadline.ts; the limits are settings.
   */
  bodyTimeout?: BodyTimeout;
  /** Middleware before the handler (body parsers, rate limits, validation), after `enforce`. */
  before?: readonly RequestHandler[];
  /**
   * Issue 46: what a machine-facing route accepts and answers. Its params, query and body schemas
   * validate the request after `before` (the body parsed by then); the whole doc is the route's
   * entry in the OpenAPI description.
   */
  doc?: RouteDoc;
}

/** Route handlers: params are plain strings (our paths have no wildcards). */
export type RouteHandler = RequestHandler<Record<string, string>>;

export interface RouteEntry extends RouteOptions {
  method: Method;
  /** Relative to the table's mount point. */
  path: string;
  handler: RouteHandler;
}

/** The `:name` params of a path pattern (`/rooms/:roomId/x` -> 'roomId'). */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** A handler whose `req.params` has the path's own params as strings. */
export type HandlerFor<P extends string> = RequestHandler<{ [K in ParamNames<P>]: string }>;

type Declare = <P extends string>(
  path: P,
  options: Access | RouteOptions,
  handler: HandlerFor<P>,
) => void;

/** A feature's routes, in order (Express matches in declaration order). */
export interface RouteTable {
  readonly entries: readonly RouteEntry[];
  get: Declare;
  post: Declare;
  put: Declare;
  patch: Declare;
  delete: Declare;
  options: Declare;
}

function isAccess(options: Access | RouteOptions): options is Access {
  return 'kind' in options;
}

export function routeTable(): RouteTable {
  const entries: RouteEntry[] = [];
  const add =
    (method: Method): Declare =>
    (path, options, handler) => {
      entries.push({
        method,
        path,
        handler: handler as RouteHandler,
        ...(isAccess(options) ? { access: options } : options),
      });
    };
  return {
    entries,
    get: add('get'),
    post: add('post'),
    put: add('put'),
    patch: add('patch'),
    delete: add('delete'),
    options: add('options'),
  };
}

/** A table with the path it is mounted at (`/w/:workspaceId/:slug/members`). */
export interface MountedTable {
  base: string;
  table: RouteTable;
}

export interface DeclaredRoute extends RouteEntry {
  /** The whole path pattern: the mount point and the entry's path. */
  pattern: string;
}

export const MUTATING: readonly Method[] = ['post', 'put', 'patch', 'delete'];

/** Every route of these tables with its whole pattern: what tests and docs walk. */
export function declaredRoutes(tables: readonly MountedTable[]): DeclaredRoute[] {
  return tables.flatMap(({ base, table }) =>
    table.entries.map((entry) => ({ ...entry, pattern: joinPath(base, entry.path) })),
  );
}

/**
 * Why a declared route breaks the rules, or nothing: a route that changes anything (a mutating
 * method, or a GET declared as writing) needs a rule that names who may, and `seat` is for reads.
 */
export function authorizationProblem(route: DeclaredRoute): string | undefined {
  const changes = MUTATING.includes(route.method) || Boolean(route.writes);
  const access = route.access as Access | undefined;
  if (!access?.kind) return `${route.method.toUpperCase()} ${route.pattern} has no access rule`;
  if (!access.rule?.trim())
    return `${route.method.toUpperCase()} ${route.pattern} names no rule for "${access.kind}"`;
  if (changes && access.kind === 'seat') {
    return `${route.method.toUpperCase()} ${route.pattern} changes state with only "any seat": name a capability, or "self" with the domain function that decides`;
  }
  return undefined;
}

function joinPath(base: string, path: string): string {
  const joined = `${base.replace(/\/$/, '')}/${path.replace(/^\//, '')}`;
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

/** Every route mounted in this process (all services, in `pnpm start`): what tests walk. */
const mounted: DeclaredRoute[] = [];

export function mountedRoutes(): readonly DeclaredRoute[] {
  return mounted;
}

/**
 * A route as `mount` built it: its whole pattern and the handlers it runs, in order (the access
 * rule's `enforce` among them). What hot-dispatch.ts serves a hot route from, so a route answered
 * before the express stack runs exactly what its router would.
 */
export interface PreparedRoute {
  method: Method;
  pattern: string;
  caseSensitive: boolean;
  handlers: readonly RequestHandler[];
}

/** Each router `mount` built (or `shareRoutes` named), with its routes. */
const preparedRoutes = new WeakMap<RequestHandler, readonly PreparedRoute[]>();

/** The routes `mount` built into this router, or that `shareRoutes` gave it; none otherwise. */
export function routesOf(router: RequestHandler): readonly PreparedRoute[] {
  return preparedRoutes.get(router) ?? [];
}

/**
 * A router that mounts `mount` routers (a service's, with its own 404s) offers these of their
 * routes as its own, for a hot mount's dispatch: only routes whose errors go straight to the app's
 * error handler (none of the router's own error middleware may apply to them).
 */
export function shareRoutes(router: RequestHandler, routes: readonly PreparedRoute[]): void {
  preparedRoutes.set(router, [...routesOf(router), ...routes]);
}

/**
 * The Express router for one table mounted at `base` (the caller mounts the router there). Each
 * route records its pattern for the metrics' route label, and its secrets for log redaction.
 * Throws at start-up on a route that breaks `authorizationProblem`, so one cannot ship.
 */
export function mount(
  { base, table }: MountedTable,
  options: { caseSensitive?: boolean } = {},
): Router {
  const router = Router({ mergeParams: true, ...options });
  const prepared: PreparedRoute[] = [];
  for (const entry of table.entries) {
    const pattern = joinPath(base, entry.path);
    const problem = authorizationProblem({ ...entry, pattern });
    if (problem) throw new Error(problem);
    if (entry.secrets) registerSecretRoute(pattern, entry.secrets);
    mounted.push({ ...entry, pattern });
    const markPattern: RequestHandler = (_req, res, next) => {
      res.locals.routePattern = pattern;
      next();
    };
    const validate = entry.doc ? validateInput(entry.doc) : undefined;
    const conform = entry.doc ? conformResponses(entry.doc, pattern) : undefined;
    const noteInput = entry.doc ? noteUndocumentedInput(entry.doc) : undefined;
    const handlers: RequestHandler[] = [
      markPattern,
      // First, before anything that waits (a token's lookup) or reads the body.
      ...(entry.bodyTimeout ? [useBodyTimeout(entry.bodyTimeout)] : []),
      ...(conform ? [conform] : []),
      ...entry.access.enforce,
      ...(entry.before ?? []),
      ...(validate ? [validate] : []),
      ...(noteInput ? [noteInput] : []),
      entry.handler as RequestHandler,
    ];
    router[entry.method](entry.path, ...handlers);
    prepared.push({
      method: entry.method,
      pattern,
      caseSensitive: options.caseSensitive ?? false,
      handlers,
    });
  }
  preparedRoutes.set(router, prepared);
  return router;
}

/** Access rules that need nothing from a service. */
export const access = {
  /** An API token with this scope, checked by `enforce` (requireToken in @ferry/workspace). */
  scope: (scope: string, check: RequestHandler): Access => ({
    kind: 'scope',
    rule: scope,
    enforce: [check],
  }),
  public: (reason: string): Access => ({ kind: 'public', rule: reason, enforce: [] }),
  /** A credential checked by `enforce`. */
  key: (rule: string, ...enforce: RequestHandler[]): Access => ({ kind: 'key', rule, enforce }),
  /** A credential the handler checks, with `checkedBy` (see Access) naming where. */
  keyCheckedBy: (rule: string, checkedBy: string, ...enforce: RequestHandler[]): Access => ({
    kind: 'key',
    rule,
    enforce,
    checkedBy,
  }),
};
