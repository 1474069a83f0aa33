import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AppError, type Logger } from '@ferry/core';
import { bodyTimedOut } from './body-deadline.js';
import { redactPath } from './redact.js';

/** Turns body-parser and other framework errors into AppErrors with our codes. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = error as { type?: string; code?: string; status?: number; statusCode?: number };
  if (e?.code === 'csrf_failed') {
    return new AppError(
      'csrf_failed',
      'This form has expired or was sent from another site. Reload the page and try again.',
    );
  }
  switch (e?.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError('payload_too_large', 'The request body is too large.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'The request body encoding is not supported.');
    case 'request.aborted':
      return new AppError('bad_request', 'The request was aborted.');
  }
  const status = e?.status ?? e?.statusCode;
  if (status === 400) return new AppError('bad_request', 'The request could not be read.');
  if (status === 413) return new AppError('payload_too_large', 'The request body is too large.');
  if (status === 415)
    return new AppError('unsupported_media_type', 'The request body type is not supported.');
  return new AppError('internal', 'Something went wrong on our side. It has been logged.');
}

export interface ErrorHandlerOptions {
  logger: Logger;
  /** Renders an HTML error page for browsers; JSON is sent when absent or when the client wants JSON. */
  renderHtml?: (req: Request, res: Response, error: AppError) => void;
}

function wantsHtml(req: Request): boolean {
  return !req.path.startsWith('/api/') && req.accepts(['json', 'html']) === 'html';
}

/** The last middleware: every error leaves as DESIGN.md's JSON shape (or an HTML page); never a stack. */
export function errorHandler({ logger, renderHtml }: ErrorHandlerOptions): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      // The 408 of a body that never came is out, and it was logged; what follows it (the body
      // parser's "request aborted" once the socket closes) is expected and says nothing new.
      if (bodyTimedOut(res)) return;
      next(error);
      return;
    }
    const appError = toAppError(error);
    if (appError.status >= 500) {
      logger.error(
        {
          err: error,
          requestId: res.locals.requestId as string,
          path: redactPath(req.originalUrl),
        },
        'request failed',
      );
    }
    for (const [name, value] of Object.entries(appError.options.headers ?? {}))
      res.setHeader(name, value);
    res.status(appError.status);
    if (renderHtml && wantsHtml(req)) renderHtml(req, res, appError);
    else res.json(appError.toJSON());
  };
}

/** 404 for anything no router answered. */
export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(new AppError('not_found', 'There is nothing at this address.'));
};
