import type { z } from 'zod';

/**
 * Every error a client can see is an AppError with a stable snake_case code. The code decides the
 * HTTP status in one place; the message is a sentence a person can act on.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  invalid_token: 401,
  forbidden: 403,
  insufficient_scope: 403,
  csrf_failed: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  dispatch_in_flight: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  no_dispatch_identity: 422,
  repo_not_ready: 422,
  rate_limited: 429,
  limit_reached: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  error: { code: string; message: string; fields?: Record<string, string> };
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: { fields?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }

  toJSON(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.options.fields ? { fields: this.options.fields } : {}),
      },
    };
  }
}

export const notFound = (what = 'resource'): AppError =>
  new AppError('not_found', `No such ${what}.`);

/** Field path -> first problem, for 422 bodies (`fields`) and inline form errors. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join('.') : '_';
    fields[key] ??= issue.message;
  }
  return fields;
}
