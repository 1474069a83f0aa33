import { z } from 'zod';
import { AppError } from '@ferry/core';
import type { ErrorSource } from '@ferry/db';
import { coerceReport, type StoredReport } from '../report.js';

/**
 * A Sentry event (develop.sentry.dev/sdk/data-model/event-payloads/) -> SPEC.md's report. Only the
 * fields we map are read, each on its own: a field of the wrong shape is left out (an SDK we have
 * not met, or a hostile body), never the whole event. What comes out goes through the same
 * coerceReport as /ingest/errors, so every cap, coercion and the fingerprint rule are SPEC.md's.
 */

/** Any value of the wrong type reads as absent. */
const optional = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const text = optional(z.string());
const line = optional(z.union([z.number(), z.string()]));

const frameSchema = z.object({
  filename: text,
  abs_path: text,
  module: text,
  function: text,
  lineno: line,
  colno: line,
  // Whether the SDK counts the frame as the app's own (not a library's, not its own).
  in_app: optional(z.boolean()),
  // The code around the frame's line, when the SDK read it (sentry-python, sentry-ruby, node).
  pre_context: optional(z.array(z.unknown())),
  context_line: optional(z.unknown()),
  post_context: optional(z.array(z.unknown())),
});

/** Frames oldest first, as Sentry sends them; an entry that is no frame is skipped. */
const stacktraceSchema = optional(
  z.object({ frames: optional(z.array(frameSchema.nullable().catch(null))) }),
);

const exceptionSchema = z.object({
  type: text,
  value: text,
  module: text,
  stacktrace: stacktraceSchema,
});

const exceptionValues = z.array(exceptionSchema.nullable().catch(null));

/** A thread as SDKs send it; sentry-go sends `threads` as a bare list, like old `exception`s. */
const threadValues = z.array(
  z
    .object({ crashed: optional(z.boolean()), stacktrace: stacktraceSchema })
    .nullable()
    .catch(null),
);

/** `logentry.params`: positional (`%s`) as a list, named (`%(name)s`) as an object. */
const paramsSchema = optional(z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]));

const messageSchema = z.union([
  z.string(),
  z.object({ formatted: text, message: text }).transform((m) => m.formatted ?? m.message),
]);

export const sentryEventSchema = z.object({
  event_id: text,
  timestamp: line,
  platform: text,
  level: text,
  logger: text,
  server_name: text,
  release: text,
  dist: text,
  environment: text,
  // `{values: [...]}` today; a bare list in older clients (the protocol still accepts both).
  exception: optional(
    z.union([
      z.object({ values: optional(exceptionValues) }).transform((e) => e.values),
      exceptionValues,
    ]),
  ),
  logentry: optional(z.object({ formatted: text, message: text, params: paramsSchema })),
  message: optional(messageSchema),
  // A message event's own stack (attachStacktrace), or the crashed thread's.
  stacktrace: stacktraceSchema,
  threads: optional(
    z.union([
      z.object({ values: optional(threadValues) }).transform((t) => t.values),
      threadValues,
    ]),
  ),
  request: optional(
    z.object({
      url: text,
      method: text,
      query_string: optional(z.unknown()),
      headers: optional(z.unknown()),
    }),
  ),
  breadcrumbs: optional(z.unknown()),
  debug_meta: optional(z.unknown()),
  sdk: optional(z.object({ name: text, version: text })),
  tags: optional(z.unknown()),
  user: optional(z.unknown()),
  contexts: optional(z.unknown()),
  extra: optional(z.unknown()),
});

export type SentryEvent = z.infer<typeof sentryEventSchema>;
export type Frame = z.infer<typeof frameSchema>;

/** One frame as a Ruby-like line: `file:line:col:in function` (the parts it has). */
export function frameLine(frame: Frame): string {
  const file = frame.filename ?? frame.abs_path ?? frame.module ?? '?';
  const position = [frame.lineno, frame.colno].filter((part) => part !== undefined).join(':');
  const where = position ? `${file}:${position}` : file;
  return frame.function ? `${where}:in ${frame.function}` : where;
}

/** Innermost frame first, as SPEC.md's backtrace (and its fingerprint's "top frame") reads. */
function backtrace(frames: readonly (Frame | null)[] | undefined): string[] {
  return (frames ?? [])
    .filter((frame): frame is Frame => frame !== null)
    .map(frameLine)
    .reverse();
}

/** SDK names (sdk.name) and platforms of mobile apps. */
const MOBILE =
  /cocoa|android|react-native|flutter|dart|capacitor|cordova|ionic|unity|xamarin|maui|kotlin-multiplatform|objc|swift/;

/** JavaScript SDKs that only ever run on a server. */
const SERVER_JS = /\.node$|\bnode\b|nestjs|bun|deno|\bserverless\b|aws-serverless|google-cloud/;

/**
 * SPEC.md's source from the SDK's name (`sentry.javascript.node`, `sentry.python`, `raven-ruby`),
 * else the event's platform: browser JavaScript is `js`, mobile SDKs are `mobile`, any other `api`.
 * The framework SDKs that run on both sides (`sentry.javascript.nextjs`, sveltekit, nuxt, remix,
 * astro...) send one name from both: their server client says platform `node`, the browser's
 * `javascript`, so the platform decides.
 */
export function sentrySource(event: Pick<SentryEvent, 'sdk' | 'platform'>): ErrorSource {
  const name = (event.sdk?.name ?? '').toLowerCase();
  if (MOBILE.test(name)) return 'mobile';
  if (SERVER_JS.test(name)) return 'node';
  if (name.startsWith('sentry.javascript.')) {
    return (event.platform ?? '').toLowerCase() === 'node' ? 'node' : 'js';
  }
  if (name.includes('python')) return 'python';
  if (name.includes('ruby')) return 'ruby';
  if (name.includes('php')) return 'php';
  switch ((event.platform ?? '').toLowerCase()) {
    case 'node':
      return 'node';
    case 'javascript':
      return 'js';
    case 'python':
      return 'python';
    case 'ruby':
      return 'ruby';
    case 'php':
      return 'php';
    case 'cocoa':
    case 'objc':
    case 'swift':
    case 'dart':
    case 'android':
      return 'mobile';
    default:
      return 'api';
  }
}

function pathOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

/**
 * The event's context: its `extra` (Sentry's "additional data"), key by key. Tags, user, request,
 * contexts, level, logger, server_name and sdk live in the structured detail (sentry-detail.ts).
 */
function context(event: SentryEvent): Record<string, unknown> {
  const extra = event.extra;
  return typeof extra === 'object' && extra !== null && !Array.isArray(extra)
    ? (extra as Record<string, unknown>)
    : {};
}

/** A parsed event, or undefined when the body is no JSON object at all. */
export function readSentryEvent(raw: unknown): SentryEvent | undefined {
  const parsed = sentryEventSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** A `%s`-style argument as Python's `str()` would print it (close enough for a log line). */
function paramText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** Python's %-conversions that take one argument (`%s`, `%d`, `%r`, `%.2f`, `%(name)s`...). */
const CONVERSION = /%(?:\(([^)]*)\))?[-#0 +]*(?:\d+)?(?:\.(\d+))?([sdirfFeEgGxXoc])|%%/g;

/** One param through its conversion: whole numbers for `%d`, fixed decimals for `%f`. */
function converted(value: unknown, type: string, precision: string | undefined): string {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (type === 'd' || type === 'i') return String(Math.trunc(value));
    if (type === 'f' || type === 'F') return value.toFixed(precision ? Number(precision) : 6);
  }
  return paramText(value);
}

/**
 * A log line's template with its params, as sentry-python's logging integration sends it
 * (`logentry: {message: "order %s failed", params: [42]}`): `%s` and friends take the list in
 * order, `%(name)s` the object's keys, `%%` is a percent sign. A conversion without its param is
 * left as written, so a template is never made up.
 */
export function formatLogentry(
  template: string,
  params: readonly unknown[] | Record<string, unknown> | undefined,
): string {
  if (params === undefined) return template;
  let next = 0;
  return template.replace(
    CONVERSION,
    (
      conversion: string,
      name: string | undefined,
      precision: string | undefined,
      type: string | undefined,
    ) => {
      if (conversion === '%%') return '%';
      const kind = type ?? 's';
      if (name !== undefined) {
        return !Array.isArray(params) && Object.hasOwn(params, name)
          ? converted((params as Record<string, unknown>)[name], kind, precision)
          : conversion;
      }
      if (!Array.isArray(params) || next >= params.length) return conversion;
      return converted(params[next++], kind, precision);
    },
  );
}

function logentryText(logentry: NonNullable<SentryEvent['logentry']>): string | undefined {
  if (logentry.formatted !== undefined) return logentry.formatted;
  return logentry.message === undefined
    ? undefined
    : formatLogentry(logentry.message, logentry.params);
}

/** The frames a report is built from: the raised exception's, else the event's or a thread's. */
export function eventFrames(event: SentryEvent): readonly (Frame | null)[] | undefined {
  const raised = (event.exception ?? []).filter((value) => value !== null).at(-1);
  if (raised) return raised.stacktrace?.frames;
  const crashed = event.threads?.find((thread) => thread?.crashed) ?? event.threads?.[0];
  return event.stacktrace?.frames ?? crashed?.stacktrace?.frames;
}

/**
 * The report of one event: the last exception (the one raised; earlier ones are its causes) gives
 * class, message and frames; a message event gives its message (and any stack it attached).
 */
export function sentryReport(event: SentryEvent, receivedAt: Date): StoredReport {
  const exceptions = (event.exception ?? []).filter((value) => value !== null);
  const raised = exceptions.at(-1);
  const frames = eventFrames(event);
  const message = raised
    ? raised.value
    : ((event.logentry && logentryText(event.logentry)) ?? event.message);
  const fields = {
    error_class: raised?.type ?? '',
    message: message ?? '',
    backtrace: backtrace(frames),
    url: event.request?.url,
    request_method: event.request?.method,
    request_path: pathOf(event.request?.url),
    environment: event.environment,
    app_version: event.release,
    context: context(event),
    occurred_at: event.timestamp,
    source: sentrySource(event),
  };
  // Every field is a string, a list of strings or an object read from JSON, so coerceReport keeps
  // it; should the context still be refused, the error itself is worth more than its context.
  const report =
    coerceReport(fields, undefined, receivedAt) ??
    coerceReport({ ...fields, context: {} }, undefined, receivedAt);
  if (!report) {
    throw new AppError('bad_request', 'The Sentry event could not be read as an error report.');
  }
  return report;
}
