import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@ferry/core';
import { bodyTimedOut } from './body-deadline.js';
import { redactPath } from './redact.js';

/**
 * A request slower than this is logged whatever else it is (a static asset included), at warn: it
 * is what a person looking at the terminal should notice.
 */
export const SLOW_REQUEST_MS = 1_000;

/** Responses serving a static asset (see markStaticAsset); weak, so a finished one is forgotten. */
const staticAssets = new WeakSet<ServerResponse>();
/** When each response's request came in, for the slow check (pino-http keeps its own private). */
const startedAt = new WeakMap<ServerResponse, number>();

/**
 * This response serves a static asset (a stylesheet, a script, an icon, the widget's bundle): when
 * it succeeds quickly it gets no log line. A page loads several of them each time, and their lines
 * were most of what `npm start` printed (issue 42); a failed, redirected or slow one is still
 * logged.
 */
export function markStaticAsset(res: ServerResponse): void {
  staticAssets.add(res);
}

/** markStaticAsset as middleware, in front of `express.static` and the like. */
export const staticAssetRoutes: RequestHandler = (_req, res, next) => {
  markStaticAsset(res);
  next();
};

function elapsedMs(res: ServerResponse): number {
  return Date.now() - (startedAt.get(res) ?? Date.now());
}

function levelOf(
  res: ServerResponse,
  err: Error | undefined,
): 'error' | 'warn' | 'info' | 'silent' {
  // Logged once, by body-deadline.ts, with what a reader needs (the route's limit).
  if (bodyTimedOut(res)) return 'silent';
  if (err || res.statusCode >= 500) return 'error';
  if (elapsedMs(res) > SLOW_REQUEST_MS) return 'warn';
  const succeeded = (res.statusCode >= 200 && res.statusCode < 300) || res.statusCode === 304;
  if (succeeded && staticAssets.has(res)) return 'silent';
  return 'info';
}

/** `GET /w/…/rooms 200 12 ms`: one line says it all at a terminal (the fields stay in JSON). */
function summary(req: IncomingMessage, res: ServerResponse, ms: number): string {
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
  const slow = ms > SLOW_REQUEST_MS ? ' (slow)' : '';
  return `${req.method ?? '?'} ${redactPath(url)} ${res.statusCode} ${Math.round(ms)} ms${slow}`;
}

/**
 * One log entry per answered request: successful static assets none, errors (5xx) at error, slow
 * ones at warn, the rest at info. Its message is the one-line summary; JSON lines also carry the
 * request id, method, (redacted) path, status and time, never headers.
 */
export function requestLog(logger: Logger): RequestHandler {
  const log = pinoHttp<IncomingMessage, ServerResponse, never>({
    logger,
    genReqId: (_req, res) => (res as unknown as { locals: { requestId: string } }).locals.requestId,
    // Paths can hold credentials (webhook keys): log the route, not the raw URL's secret part.
    // Redirects carry paths too (`Location: /login?next=/invite/inv_…`).
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: redactPath(req.url),
      }),
      // No header dump at info, request or response: the status, and a redirect's (redacted)
      // target, which is what a reader of the log needs.
      res: (res: { statusCode: number; headers?: Record<string, unknown> }) => {
        const location = res.headers?.location;
        return {
          statusCode: res.statusCode,
          ...(typeof location === 'string' ? { location: redactPath(location) } : {}),
        };
      },
    },
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/metrics' },
    customLogLevel: (_req, res, err) => levelOf(res, err),
    customSuccessMessage: (req, res, ms) => summary(req, res, ms),
    customErrorMessage: (req, res) => summary(req, res, elapsedMs(res)),
  });
  return (req, res, next) => {
    startedAt.set(res, Date.now());
    log(req, res, next);
  };
}
