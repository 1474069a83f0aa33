import type { ErrorRequestHandler } from 'express';
import { AppError, type ErrorCode, type Logger } from '@ferry/core';
import { redactPath, toAppError } from '@ferry/http';

/**
 * Errors as Discord answers them (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json),
 * `{"message": "...", "code": N}` with Discord's JSON error code, so discord.js raises its
 * DiscordAPIError with the code a bot checks (10008 Unknown Message, 10015 Unknown Webhook, ...).
 * The HTTP status stays Ferry's (AppError's code decides it); the message keeps Ferry's sentence
 * after Discord's words, so a person reading it learns which limit was hit.
 */

/** Discord's JSON error codes this endpoint answers. */
export const DISCORD_CODE = {
  general: 0,
  unknownMessage: 10008,
  unknownWebhook: 10015,
  requestTooLarge: 40005,
  emptyMessage: 50006,
  invalidFormBody: 50035,
  invalidJson: 50109,
} as const;

export class DiscordError extends AppError {
  constructor(
    code: ErrorCode,
    readonly discordCode: number,
    message: string,
    /** Discord's `errors` tree for 50035 (field -> `_errors`). */
    readonly errors?: Record<string, unknown>,
  ) {
    super(code, message);
  }
}

/** Discord's answer to a path it has no route for (a mistyped version or resource). */
export function unknownRoute(): DiscordError {
  return new DiscordError('not_found', DISCORD_CODE.general, '404: Not Found');
}

/** Discord's answer to a message id that is not this webhook's (or does not exist). */
export function unknownMessage(): DiscordError {
  return new DiscordError('not_found', DISCORD_CODE.unknownMessage, 'Unknown Message');
}

/** 50035 with Discord's error tree: `{field: {_errors: [{code, message}]}}`. */
export function invalidFormBody(fields: Record<string, string>): DiscordError {
  const errors = Object.fromEntries(
    Object.entries(fields).map(([field, message]) => [
      field,
      { _errors: [{ code: 'BASE_TYPE_INVALID', message }] },
    ]),
  );
  const detail = Object.entries(fields)
    .map(([field, message]) => `${field}: ${message}`)
    .join(' ');
  return new DiscordError(
    'bad_request',
    DISCORD_CODE.invalidFormBody,
    `Invalid Form Body. ${detail}`,
    errors,
  );
}

interface DiscordBody {
  message: string;
  code: number;
  errors?: Record<string, unknown>;
}

/** Ferry's error as Discord's body; undefined for 429, which has a shape of its own. */
function bodyOf(error: AppError): DiscordBody {
  if (error instanceof DiscordError) {
    return {
      message: error.message,
      code: error.discordCode,
      ...(error.errors ? { errors: error.errors } : {}),
    };
  }
  switch (error.code) {
    case 'not_found':
      // The only other 404 here is the key's: unknown, disabled, deleted, orphaned alike.
      return { message: 'Unknown Webhook', code: DISCORD_CODE.unknownWebhook };
    case 'invalid_json':
      return {
        message: `The request body contains invalid JSON. ${error.message}`,
        code: DISCORD_CODE.invalidJson,
      };
    case 'payload_too_large':
      return {
        message: `Request entity too large. ${error.message}`,
        code: DISCORD_CODE.requestTooLarge,
      };
    case 'validation_failed':
      return {
        message: `Invalid Form Body. ${error.message}`,
        code: DISCORD_CODE.invalidFormBody,
      };
    default:
      return {
        message: error.status >= 500 ? `${error.status}: ${error.message}` : error.message,
        code: DISCORD_CODE.general,
      };
  }
}

/**
 * Discord's 429 (https://discord.com/developers/docs/topics/rate-limits): `retry_after` in seconds
 * in the body, `Retry-After` and the X-RateLimit-* headers discord.js's REST reads to wait
 * (`X-RateLimit-Reset-After`, `-Remaining`, `-Scope`). discord.js waits and retries a 429 until it
 * succeeds unless told to reject (its `rejectOnRateLimit`), exactly as against Discord.
 */
function rateLimited(
  error: AppError,
  limit: number,
): { headers: Record<string, string>; body: object } {
  const retryAfter = Number(error.options.headers?.['Retry-After'] ?? 1);
  return {
    headers: {
      'Retry-After': String(retryAfter),
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset-After': String(retryAfter),
      'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + retryAfter),
      'X-RateLimit-Scope': 'shared',
    },
    body: { message: 'You are being rate limited.', retry_after: retryAfter, global: false },
  };
}

/** The error handler of the Discord-compatible routes: every error in Discord's shape. */
export function discordErrorHandler(logger: Logger, rateLimit: number): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
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
    if (appError.code === 'rate_limited') {
      const answer = rateLimited(appError, rateLimit);
      res.status(429).set(answer.headers).json(answer.body);
      return;
    }
    res.status(appError.status).json(bodyOf(appError));
  };
}
