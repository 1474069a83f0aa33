import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { AppError, fieldErrors, storableDeep } from '@ferry/core';

/**
 * After a body parser: every string of the parsed body (keys too) made storable, so NUL and lone
 * surrogates, which JSON and forms carry but Postgres refuses, become U+FFFD here, once, for
 * every field and every route behind it. Validation then sees ordinary text.
 */
export const storableBody: RequestHandler = (req, _res, next) => {
  if (req.body !== undefined) req.body = storableDeep(req.body as unknown);
  next();
};

/**
 * Parse untrusted input with a zod schema; on failure throw a 422 AppError that names each field.
 * The message mentions the first problem so a person reading only the message can still act.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what = 'request',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = fieldErrors(result.error);
  const [first] = Object.entries(fields);
  const detail = first ? ` ${first[0] === '_' ? '' : `${first[0]}: `}${first[1]}` : '';
  throw new AppError('validation_failed', `The ${what} is not valid.${detail}`, { fields });
}

/**
 * express.json() leaves a body it does not recognise as JSON unparsed (`req.body` undefined) and
 * reads an empty one as `{}`; neither is JSON the caller sent, so both are told to send JSON.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const empty = req.get('content-length') === '0';
  if (!req.is('application/json') || req.body === undefined || empty) {
    throw new AppError(
      'invalid_json',
      'Send a JSON body with the header "Content-Type: application/json".',
    );
  }
  next();
};
