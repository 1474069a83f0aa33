import querystring from 'node:querystring';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, {
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { storableDeep, type AppError, type Logger } from '@ferry/core';
import { bodyDeadline, DEFAULT_BODY_TIMEOUTS, type BodyTimeouts } from './body-deadline.js';
import { compressResponses } from './compress.js';
import { errorHandler, notFoundHandler } from './errors.js';
import {
  hotDispatch,
  markDispatched,
  runHandlers,
  wasDispatched,
  type HotDispatch,
} from './hot-dispatch.js';
import type { Metrics } from './metrics.js';
import { requestId } from './request-id.js';
import { requestLog } from './request-log.js';
import { routesOf } from './route-table.js';

/** The router, except for a request whose route hotDispatch already ran (it passed it on). */
const skipDispatched =
  (router: RequestHandler): RequestHandler =>
  (req, res, next) => {
    if (wasDispatched(req)) next();
    else void router(req, res, next);
  };

/** The app's own middleware, except for a hot route's request: it ran them already. */
const unlessDispatched =
  (middleware: RequestHandler): RequestHandler =>
  (req, res, next) => {
    if (wasDispatched(req)) next();
    else void middleware(req, res, next);
  };

/** What a hot route passed on (an error, or nothing): the express stack goes on from there. */
const PASSED_ON = Symbol('passed on by a hot route');
type PassingOn = Request & { [PASSED_ON]?: unknown };

const resumePassedOn: RequestHandler = (req, _res, next) => {
  if (wasDispatched(req)) next((req as PassingOn)[PASSED_ON]);
  else next();
};

/**
 * res.json for a hot route's answer: what express's json and send do for a POST's small JSON body
 * (express 5 response.js), without its ETag (a hash of every body, which no client of a POST can
 * use) and its freshness and HEAD checks. Anything out of that common case (a Content-Type set
 * already, a body-less status, HEAD, no JSON for the value) goes to express's own.
 */
function hotJson(expressJson: Response['json']): Response['json'] {
  return function json(this: Response, value: unknown) {
    const text = JSON.stringify(value) as string | undefined;
    const bodiless = this.statusCode === 204 || this.statusCode === 304;
    if (
      text === undefined ||
      bodiless ||
      this.hasHeader('Content-Type') ||
      this.req.method === 'HEAD'
    ) {
      return expressJson.call(this, value);
    }
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', Buffer.byteLength(text));
    this.end(text);
    return this;
  };
}

/** Express's own entry (application.js); not in its published types. */
type Handle = (req: IncomingMessage, res: ServerResponse, callback?: NextFunction) => void;

/**
 * Issue 48: a hot route's request never enters the express stack unless its route passes it on.
 * The app's entry answers it first: it does what express's entry and router do before the first
 * middleware (the circular references, the request and response prototypes, `locals`,
 * `originalUrl`, `params`), then runs the app's own middleware and the route's handlers in a row.
 * Its JSON answer skips express's ETag (hotJson).
 * What the route passes on (a thrown or rejected error, `next(err)`, `next()`) re-enters the
 * express stack where the hot routers sit, so errors reach the same handlers as before.
 */
function answerHotRoutesFirst(app: Express, dispatch: HotDispatch): void {
  const entry = app as unknown as { handle: Handle };
  const expressHandle = entry.handle.bind(app);
  const hotResponse = Object.create(app.response, {
    json: { value: hotJson(app.response.json), writable: true },
  }) as Response;
  entry.handle = (incoming, outgoing, callback) => {
    const found = dispatch.match(incoming);
    if (!found) {
      expressHandle(incoming, outgoing, callback);
      return;
    }
    const req = Object.setPrototypeOf(incoming, app.request) as Request;
    const res = Object.setPrototypeOf(outgoing, hotResponse) as Response;
    req.res = res;
    res.req = req;
    res.locals ??= Object.create(null) as Response['locals'];
    req.originalUrl ??= req.url;
    req.baseUrl = '';
    req.params = found.params;
    markDispatched(req);
    runHandlers(found.handlers, req, res, (passed?: unknown) => {
      (req as PassingOn)[PASSED_ON] = passed;
      expressHandle(req, res, callback);
    });
  };
}

export interface HttpAppOptions {
  logger: Logger;
  metrics: Metrics;
  trustProxy?: boolean;
  /**
   * Routes that answer at high rates (error ingestion, incoming webhooks): mounted before the
   * request log, so an answer there costs no log line and no per-request child logger. Their
   * 5xx errors are still logged, with the request id, by the error handler; metrics still count
   * them.
   */
  hotRoutes?: readonly RequestHandler[];
  /** How long a request body may take to arrive, by kind of route (body-deadline.ts). */
  bodyTimeouts?: BodyTimeouts;
}

/**
 * The express app every service starts from: request ids, metrics, request logs. Mount routers
 * with `app.use(...)`, then call `finishApp(app, ...)` to add the 404 and error handlers last.
 */
export function createHttpApp({
  logger,
  metrics,
  trustProxy = false,
  hotRoutes = [],
  bodyTimeouts = DEFAULT_BODY_TIMEOUTS,
}: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Express 5's default ("simple") query parser, with every value made storable (see
  // storableBody): a query string is as untrusted as a body.
  app.set('query parser', (query: string) => storableDeep(querystring.parse(query)));
  app.set('trust proxy', trustProxy);
  // Before any route can read a body, so every one has a deadline (a route moves it to its kind).
  const own = [requestId, metrics.middleware, bodyDeadline({ timeouts: bodyTimeouts, logger })];
  // Their declared routes are answered at the app's entry, before the express stack
  // (answerHotRoutesFirst); the routers stay for what that passes on, skipping a route that ran.
  const dispatch = hotDispatch(hotRoutes.flatMap(routesOf), own);
  for (const middleware of own) app.use(dispatch ? unlessDispatched(middleware) : middleware);
  if (dispatch) {
    answerHotRoutesFirst(app, dispatch);
    app.use(resumePassedOn);
  }
  for (const routes of hotRoutes) {
    app.use(dispatch ? skipDispatched(routes) : routes);
  }
  // After the hot routes (small JSON answers to machines), before everything else.
  app.use(compressResponses());
  app.use(requestLog(logger));
  return app;
}

export function finishApp(
  app: Express,
  options: { logger: Logger; renderHtml?: (req: Request, res: Response, error: AppError) => void },
): Express {
  app.use(notFoundHandler);
  app.use(errorHandler(options));
  return app;
}
