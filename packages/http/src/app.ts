import querystring from 'node:querystring';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { storableDeep, type AppError, type Logger } from '@ferry/core';
import { bodyDeadline, DEFAULT_BODY_TIMEOUTS, type BodyTimeouts } from './body-deadline.js';
import { compressResponses } from './compress.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { hotDispatch, wasDispatched } from './hot-dispatch.js';
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
  app.use(requestId);
  app.use(metrics.middleware);
  // Before any route can read a body, so every one has a deadline (a route moves it to its kind).
  app.use(bodyDeadline({ timeouts: bodyTimeouts, logger }));
  // Their declared routes are answered before the express routers (hot-dispatch.ts); the routers
  // stay for what it passes on, skipping a route that already ran.
  const dispatch = hotDispatch(hotRoutes.flatMap(routesOf));
  if (dispatch) app.use(dispatch);
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
