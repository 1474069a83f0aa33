import querystring from 'node:querystring';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
 * res.json without express's ETag where no client can use one (issue 48): for an answer to
 * anything but GET or HEAD, express's json and send (express 5 response.js) hash every body into
 * an ETag and check freshness, which only a GET's conditional request can use. Such an answer here
 * gets the same body, Content-Type and Content-Length in one write. Everything else (GET and HEAD,
 * a Content-Type set already, a body-less status, no JSON for the value) goes to express's own.
 */
function leanJson(expressJson: Response['json']): Response['json'] {
  return function json(this: Response, value: unknown) {
    const method = this.req.method;
    const text = JSON.stringify(value) as string | undefined;
    if (
      method === 'GET' ||
      method === 'HEAD' ||
      text === undefined ||
      this.statusCode === 204 ||
      this.statusCode === 304 ||
      this.hasHeader('Content-Type')
    ) {
      return expressJson.call(this, value);
    }
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', Buffer.byteLength(text));
    this.end(text);
    return this;
  };
}

/**
 * The request and response classes for `http.createServer` that make its objects with the app's
 * own prototypes from the start. Express otherwise swaps the prototypes of every request and
 * response (Object.setPrototypeOf in its entry), which V8 answers with new object shapes and
 * slower property access on both for the rest of the request: 4 % of an incoming post's CPU in
 * perf (issue 48). Express's own swap is then a no-op (the prototype is the same).
 */
export function serverClassesFor(app: Express): {
  IncomingMessage: typeof http.IncomingMessage;
  ServerResponse: typeof http.ServerResponse;
} {
  // Node's own constructors are plain functions (node:_http_incoming, node:_http_server), so a
  // constructor with another prototype can run them on its object.
  function AppRequest(this: http.IncomingMessage, socket: Socket): void {
    (http.IncomingMessage as unknown as (socket: Socket) => void).call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(
    this: http.ServerResponse,
    req: http.IncomingMessage,
    options?: object,
  ): void {
    (http.ServerResponse as unknown as (req: http.IncomingMessage, options?: object) => void).call(
      this,
      req,
      options,
    );
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
  };
}

/** Express's own entry (application.js); not in its published types. */
type Handle = (req: IncomingMessage, res: ServerResponse, callback?: NextFunction) => void;

/**
 * Issue 48: a hot route's request never enters the express stack unless its route passes it on.
 * The app's entry answers it first: it does what express's entry and router do before the first
 * middleware (the circular references, the request and response prototypes, `locals`,
 * `originalUrl`, `params`), then runs the app's own middleware and the route's handlers in a row.
 * What the route passes on (a thrown or rejected error, `next(err)`, `next()`) re-enters the
 * express stack where the hot routers sit, so errors reach the same handlers as before.
 */
function answerHotRoutesFirst(app: Express, dispatch: HotDispatch): void {
  const entry = app as unknown as { handle: Handle };
  const expressHandle = entry.handle.bind(app);
  entry.handle = (incoming, outgoing, callback) => {
    const found = dispatch.match(incoming);
    if (!found) {
      expressHandle(incoming, outgoing, callback);
      return;
    }
    // Born with them when the server was made with serverClassesFor(app); swapped otherwise.
    const req = (
      Object.getPrototypeOf(incoming) === app.request
        ? incoming
        : Object.setPrototypeOf(incoming, app.request)
    ) as Request;
    const res = (
      Object.getPrototypeOf(outgoing) === app.response
        ? outgoing
        : Object.setPrototypeOf(outgoing, app.response)
    ) as Response;
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
  app.response.json = leanJson(app.response.json);
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
