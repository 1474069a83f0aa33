import type { RequestHandler } from 'express';
import { z } from 'zod';
import { parseInput } from './validation.js';

/**
 * What a machine-facing route accepts and answers, as zod schemas on its route-table entry
 * (issue 46). The same schemas validate the request (`validateInput`, run by `mount` before the
 * handler) and describe the route in the OpenAPI document (openapi.ts), so a route cannot document
 * one shape and accept another. Page routes (HTML forms) carry none.
 */

/** How a caller proves who it is, as the OpenAPI document's security schemes name them. */
export type RouteSecurity =
  /** `Authorization: Bearer fry_…` with the route's scope (access.kind 'scope'). */
  | 'bearer'
  /** The workspace's public key in `X-Service-Tenant` (error reports, the widget). */
  | 'publicKey'
  /** The incoming webhook key in the path: the URL is the credential. */
  | 'webhookKey'
  /** The Sentry DSN's public key (`X-Sentry-Auth`, `sentry_key=` or the DSN in the envelope). */
  | 'sentryKey'
  /** No credential: anyone may call it. */
  | 'none';

export interface RouteResponseDoc {
  description: string;
  /** The JSON body; absent for an empty answer (204) or one that is not JSON. */
  schema?: z.ZodType;
  /** Another media type than JSON (`text/plain` for Slack's `ok`). */
  contentType?: string;
  /** Headers worth naming (Location, Retry-After). */
  headers?: Record<string, string>;
}

export interface RouteDoc {
  /** One line: what the call does. */
  summary: string;
  description?: string;
  /** The reference's section: the feature's name. */
  tag: string;
  security: RouteSecurity;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** A JSON body (`bodyContentType` says otherwise), validated before the handler runs. */
  body?: z.ZodType;
  bodyContentType?: string;
  /**
   * What a refusal calls the body ("The feedback is not valid. note: …"); 'request body' unless
   * given. Routes that named their body before they had a doc keep their messages.
   */
  bodyName?: string;
  /**
   * A body the handler's own parser reads (a Sentry envelope, multipart, a form, raw bytes):
   * described, never validated here. `schema` is what it holds once parsed, for readers.
   */
  rawBody?: {
    contentTypes: readonly string[];
    description: string;
    schema?: z.ZodType;
    /**
     * Why a body outside `schema` is answered with a success rather than refused, for the one
     * route SPEC.md tells to (`/ingest/errors`: an unreadable report is dropped silently and the
     * rest kept). Without it, the test suite holds every success to `schema`
     * (noteUndocumentedInput).
     */
    outsideSchema?: string;
  };
  /**
   * The body of this route's error answers when it is not Ferry's `{error: {code, message}}`:
   * a vendor's shape (Discord's `{message, code}`, Sentry's `{detail}`). Checked like any answer.
   */
  errorSchema?: z.ZodType;
  /** Every answer the route gives on purpose, by status. Shared errors are added (openapi.ts). */
  responses: Record<number, RouteResponseDoc>;
}

/** The request's parts as the route's schemas parsed them: what the handler reads. */
export interface ValidatedInput {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

/**
 * Parses the declared parts (params, then query, then body) with the route's schemas: a refusal
 * is the usual 422 naming the field (parseInput), and what passes is kept in
 * `res.locals.input` for the handler (`inputOf`), transformed as the schema says.
 */
export function validateInput(doc: RouteDoc): RequestHandler | undefined {
  if (!doc.params && !doc.query && !doc.body) return undefined;
  return (req, res, next) => {
    const input: ValidatedInput = {};
    if (doc.params) input.params = parseInput(doc.params, req.params, 'path');
    if (doc.query) input.query = parseInput(doc.query, req.query, 'query');
    if (doc.body) input.body = parseInput(doc.body, req.body, doc.bodyName ?? 'request body');
    res.locals.input = input;
    next();
  };
}

/** The validated part of a request, typed by the schema that validated it. */
export function inputOf<S extends z.ZodType>(
  locals: Record<string, unknown>,
  part: keyof ValidatedInput,
  _schema: S,
): z.infer<S> {
  const input = locals.input as ValidatedInput | undefined;
  if (!input || !(part in input)) {
    throw new Error(`The route declares no ${part} schema: nothing was validated.`);
  }
  return input[part] as z.infer<S>;
}

/** Every error answer's body (AppError.toJSON in @ferry/core): the description's `default`. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string().meta({ description: 'Stable, snake_case: what a client branches on.' }),
    message: z.string().meta({ description: 'A sentence a person can act on.' }),
    fields: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'For a 422: each refused field and what is wrong with it.' }),
  }),
});

/** Set by the test suite's global setup: every documented route's JSON answers are checked. */
export const CONFORMANCE_ENV = 'FERRY_API_CONFORMANCE';

/**
 * With FERRY_API_CONFORMANCE=fail (the test suite), a documented route's JSON answer must match
 * the schema its doc gives for that status (an error status: the error body), or the answer is
 * replaced by a 500 naming the mismatch, so the test that produced it fails. Off in production:
 * checking every answer costs CPU and a user gains nothing from a 500.
 *
 * Requests are held to their description too: a route that takes its body raw (`rawBody`, read by
 * the handler's own parser or a domain function) and answers it with a success although the
 * body's JSON breaks the described `schema` has accepted a shape it does not document, so that
 * answer is a 500 as well (`noteUndocumentedInput` records the problem before the handler runs).
 */
export function conformResponses(doc: RouteDoc, pattern: string): RequestHandler | undefined {
  if (process.env[CONFORMANCE_ENV] !== 'fail') return undefined;
  return (_req, res, next) => {
    const refuse = (problem: string) => ({
      error: {
        code: 'internal',
        message: `The answer of ${pattern} does not match its description: ${problem}`,
      },
    });
    const acceptedUndocumented = (): string | undefined =>
      res.statusCode < 400 && typeof res.locals.undocumentedInput === 'string'
        ? `it accepted a body its description refuses (${res.locals.undocumentedInput})`
        : undefined;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const status = res.statusCode;
      const documented = doc.responses[status];
      const schema = documented
        ? documented.schema
        : status >= 400
          ? (doc.errorSchema ?? errorBodySchema)
          : undefined;
      const problem =
        acceptedUndocumented() ??
        (!documented && status < 400
          ? `status ${status} is not documented`
          : schema
            ? issuesOf(schema.safeParse(body).error)
            : undefined);
      if (!problem) return json(body);
      res.status(500);
      return json(refuse(problem));
    };
    // An answer without a JSON body (204, Slack's text `ok`) is checked for the request alone.
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      const problem = res.headersSent ? undefined : acceptedUndocumented();
      if (!problem) return end(...args);
      res.status(500).setHeader('Content-Type', 'application/json; charset=utf-8');
      return end(JSON.stringify(refuse(problem)));
    }) as typeof res.end;
    next();
  };
}

function issuesOf(error: z.ZodError | undefined): string | undefined {
  return error?.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
}

/** The media types whose body is JSON to a route that reads it raw (`/ingest/errors` takes text/plain from sendBeacon). */
const JSON_BODY_TYPES = ['application/json', 'text/plain'];

/**
 * In the test suite only: for a route that reads its body raw against a described schema, notes in
 * `res.locals.undocumentedInput` why the request's JSON body breaks that schema, for
 * conformResponses to refuse a success built on it. Runs after the route's body parser.
 */
export function noteUndocumentedInput(doc: RouteDoc): RequestHandler | undefined {
  const schema = doc.rawBody?.schema;
  if (process.env[CONFORMANCE_ENV] !== 'fail' || !schema || doc.rawBody?.outsideSchema) {
    return undefined;
  }
  return (req, res, next) => {
    const type = (req.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!JSON_BODY_TYPES.includes(type)) return next();
    let body: unknown = req.body;
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      try {
        body = JSON.parse(body.toString());
      } catch {
        return next(); // not JSON at all: the route refuses it itself
      }
    }
    const problem = body === undefined ? undefined : issuesOf(schema.safeParse(body).error);
    // The body's start, so the failing test shows what was let through (tests only: never logged).
    // From the text as sent: a hostile body may nest too deep for JSON.stringify's stack.
    if (problem) res.locals.undocumentedInput = `${problem}; body ${excerpt(req.body)}`;
    next();
  };
}

function excerpt(raw: unknown): string {
  if (typeof raw === 'string' || Buffer.isBuffer(raw)) return raw.toString().slice(0, 160);
  try {
    return JSON.stringify(raw).slice(0, 160);
  } catch {
    return '(too deep to show)';
  }
}
