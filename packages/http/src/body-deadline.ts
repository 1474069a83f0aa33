import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { AppError, type Config, type Logger } from '@ferry/core';
import { redactPath } from './redact.js';

/**
 * Slow clients (issue 47). A request whose Content-Length promises more than it sends would hold
 * its connection (and a body parser's buffers) for Node's 300 s request timeout; one that trickles
 * its headers, for as long as it likes. Two guards:
 *
 * - Headers: Node's own `headersTimeout` (serverTimeouts below). No route is known before the
 *   headers are in, so one value for the server is all there can be; Node answers a bare 408.
 * - Bodies: a deadline per request, by kind of route, armed before any body parser reads (the
 *   app's first middleware, `bodyDeadline`) and moved by the route's own kind (`useBodyTimeout`,
 *   which `mount` puts first on a route declaring `bodyTimeout`). When it passes with the body
 *   still incomplete, the client gets Ferry's JSON 408 with `Connection: close` and the socket
 *   closes. Node's `requestTimeout` is one value per server, too short for uploads or too long for
 *   ingest, so it stays only as a backstop above the longest kind.
 *
 * The deadline counts from the request's arrival, not from the last byte: a client dripping one
 * byte every few seconds must not hold a connection forever either.
 */

/**
 * What a route's body is, when it is not the default (page forms and the JSON API):
 * - `ingest`: error reports and incoming webhooks, small bodies machines send at high rates;
 * - `upload`: bodies that are large on purpose (sentry-cli's chunks, feedback with a screenshot).
 */
export type BodyTimeout = 'ingest' | 'upload';

export interface BodyTimeouts {
  defaultMs: number;
  ingestMs: number;
  uploadMs: number;
}

type TimeoutSettings = Pick<
  Config,
  'BODY_TIMEOUT_MS' | 'INGEST_BODY_TIMEOUT_MS' | 'UPLOAD_BODY_TIMEOUT_MS'
>;

export function bodyTimeoutsOf(config: TimeoutSettings): BodyTimeouts {
  return {
    defaultMs: config.BODY_TIMEOUT_MS,
    ingestMs: config.INGEST_BODY_TIMEOUT_MS,
    uploadMs: config.UPLOAD_BODY_TIMEOUT_MS,
  };
}

/** The settings' defaults (packages/core config), for an app built without a config. */
export const DEFAULT_BODY_TIMEOUTS: BodyTimeouts = {
  defaultMs: 60_000,
  ingestMs: 30_000,
  uploadMs: 300_000,
};

function limitOf(timeouts: BodyTimeouts, kind: BodyTimeout | undefined): number {
  if (kind === 'ingest') return timeouts.ingestMs;
  if (kind === 'upload') return timeouts.uploadMs;
  return timeouts.defaultMs;
}

/**
 * The options `http.createServer` takes for slow clients. `requestTimeout` sits above the longest
 * body deadline (plus the headers' time): the per-route 408 always comes first, and Node's bare one
 * only catches what no middleware saw. Node checks both timeouts on an interval (30 s by default,
 * which would let a trickled header live up to 30 s past its limit): a quarter of the headers'
 * limit, at most 5 s. An idle keep-alive connection is not affected (keepAliveTimeout governs it).
 */
export function serverTimeouts(
  config: TimeoutSettings & Pick<Config, 'HEADERS_TIMEOUT_MS'>,
): Pick<http.ServerOptions, 'headersTimeout' | 'requestTimeout' | 'connectionsCheckingInterval'> {
  const bodies = bodyTimeoutsOf(config);
  const longestBody = Math.max(bodies.defaultMs, bodies.ingestMs, bodies.uploadMs);
  return {
    headersTimeout: config.HEADERS_TIMEOUT_MS,
    requestTimeout: config.HEADERS_TIMEOUT_MS + longestBody,
    connectionsCheckingInterval: Math.min(5_000, Math.ceil(config.HEADERS_TIMEOUT_MS / 4)),
  };
}

interface Deadline {
  startedAt: number;
  timer: NodeJS.Timeout | undefined;
  /** Moves the deadline to this kind's limit, counted from the request's arrival. */
  use(kind: BodyTimeout): void;
}

const deadlines = new WeakMap<IncomingMessage, Deadline>();
const timedOut = new WeakSet<ServerResponse>();

/**
 * This response is the 408 of a body that did not arrive: the request log leaves it to this
 * module's own line, and the error handler drops the body parser's late "aborted" error.
 */
export function bodyTimedOut(res: ServerResponse): boolean {
  return timedOut.has(res);
}

function hasBody(req: IncomingMessage): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
  );
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;

function answerTimeout(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse & { locals?: Record<string, unknown> },
  limitMs: number,
  logger: Logger,
): void {
  timedOut.add(res);
  const path = redactPath(req.originalUrl ?? req.url ?? '');
  const expected = req.headers['content-length'];
  logger.warn(
    {
      requestId: res.locals?.requestId as string | undefined,
      method: req.method,
      path,
      route: res.locals?.routePattern as string | undefined,
      limitMs,
      ...(expected ? { contentLength: Number(expected) } : {}),
    },
    `${req.method ?? '?'} ${path} 408: the body did not arrive within ${seconds(limitMs)}`,
  );
  const body = JSON.stringify(
    new AppError(
      'request_timeout',
      `The request body did not arrive within ${seconds(limitMs)}. Send it again.`,
    ).toJSON(),
  );
  // Written directly, not through res.json: the answer is the same on every route whatever its
  // documented error shape, and nothing downstream (a route's conformance check) may turn it into
  // something else. `Connection: close` makes Node close the socket once the answer is out.
  res.writeHead(408, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/**
 * The app's first middleware: arms the default deadline on a request that has a body. When it
 * passes with the body incomplete and nothing answered yet, the 408 goes out; when the answer
 * went out early (a refusal before reading the body) and the body still does not come, the socket
 * is closed, so a refused client cannot keep the connection either.
 */
export function bodyDeadline(options: { timeouts: BodyTimeouts; logger: Logger }): RequestHandler {
  const { timeouts, logger } = options;
  return (req, res, next) => {
    if (!hasBody(req) || req.complete) {
      next();
      return;
    }
    const deadline: Deadline = {
      startedAt: Date.now(),
      timer: undefined,
      use(kind) {
        arm(limitOf(timeouts, kind));
      },
    };
    const clear = (): void => {
      clearTimeout(deadline.timer);
      deadline.timer = undefined;
    };
    const arm = (limitMs: number): void => {
      clear();
      const left = Math.max(0, deadline.startedAt + limitMs - Date.now());
      deadline.timer = setTimeout(() => {
        deadline.timer = undefined;
        if (req.complete) return;
        if (res.headersSent) req.socket.destroy();
        else answerTimeout(req, res, limitMs, logger);
      }, left);
      // A pending deadline must not keep a stopping process alive: the socket does, while it lasts.
      deadline.timer.unref();
    };
    deadlines.set(req, deadline);
    req.once('end', clear);
    req.once('close', clear);
    arm(timeouts.defaultMs);
    next();
  };
}

/** A route's own kind of body (RouteOptions.bodyTimeout): moves the request's deadline to it. */
export function useBodyTimeout(kind: BodyTimeout): RequestHandler {
  return (req, _res, next) => {
    deadlines.get(req)?.use(kind);
    next();
  };
}
