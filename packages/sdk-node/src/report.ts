/**
 * One captured error -> one report in the shape of SPEC.md's error report table. Pure: the clock is
 * the caller's `now`. The server coerces and truncates too; we cut here as well so that one huge
 * message or context cannot push a whole batch past the server's 512 KB body limit (413: all ten
 * reports lost).
 */

export interface RequestFields {
  url?: string;
  request_method?: string;
  request_path?: string;
}

export interface ErrorReport extends RequestFields {
  error_class: string;
  message: string;
  /** Stack frames, top first, without the `Name: message` header line. */
  backtrace: string[];
  environment?: string;
  app_version?: string;
  context: Record<string, unknown>;
  occurred_at: string;
}

export interface ReportDefaults {
  environment?: string;
  appVersion?: string;
}

/** The server's limits (SPEC.md), repeated here because this package ships without @ferry code. */
const LIMITS = {
  errorClass: 200,
  message: 1_000,
  backtraceLines: 30,
  backtraceLine: 400,
  url: 600,
  requestMethod: 10,
  requestPath: 500,
  environment: 40,
  appVersion: 40,
  /** Ours: a context whose JSON is longer is replaced by a note (10 of them stay far below 512 KB). */
  contextJson: 32_000,
} as const;

/** Class name of a thrown value that is not an Error (a string, a plain object...). */
export const NON_ERROR_CLASS = 'NonError';

interface ErrorLike {
  name?: unknown;
  message: string;
  stack?: unknown;
}

/**
 * Errors from another realm (vm, worker) fail `instanceof Error`; anything with a string message
 * and a string stack is treated as one.
 */
function errorLike(value: unknown): ErrorLike | undefined {
  if (value instanceof Error) return value;
  if (typeof value !== 'object' || value === null) return undefined;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.message === 'string' && typeof candidate.stack === 'string'
    ? (candidate as unknown as ErrorLike)
    : undefined;
}

/**
 * `error.name`, unless it is the inherited 'Error' of a subclass that never set it
 * (`class PaymentFailed extends Error {}`): then the constructor's name, which is the class the
 * developer wrote.
 */
export function errorClassOf(error: unknown): string {
  const like = errorLike(error);
  if (!like) return NON_ERROR_CLASS;
  const name = typeof like.name === 'string' ? like.name.trim() : '';
  const ctor = (like as { constructor?: { name?: unknown } }).constructor?.name;
  const ctorName = typeof ctor === 'string' ? ctor : '';
  if (name && name !== 'Error') return name;
  if (ctorName && ctorName !== 'Error' && ctorName !== 'Object') return ctorName;
  return name || 'Error';
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    try {
      const json = JSON.stringify(value);
      if (typeof json === 'string') return json;
    } catch {
      // circular or a throwing toJSON: fall through to String
    }
  }
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

const FRAME = /^\s*at\s/;

/**
 * The stack without its header. V8's header is `Name: message`, which spans several lines when the
 * message does, so we start at the first `at ...` frame. Dropping the header matters: the server
 * fingerprints class + top line, and with the header on top every message would be its own group.
 * A stack with no V8 frames (rewritten by a library) loses its first line only.
 */
export function backtraceOf(stack: unknown): string[] {
  if (typeof stack !== 'string') return [];
  const lines = stack.split(/\r\n|\r|\n/);
  const first = lines.findIndex((line) => FRAME.test(line));
  return (first >= 0 ? lines.slice(first) : lines.slice(1))
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, LIMITS.backtraceLines)
    .map((line) => cut(line, LIMITS.backtraceLine));
}

/** Cut to `max` UTF-16 units without leaving half a surrogate pair. */
function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = /[\uD800-\uDBFF]/.test(value.charAt(max - 1)) ? max - 1 : max;
  return value.slice(0, end);
}

function optional(value: unknown, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  return cut(typeof value === 'string' ? value : describe(value), max);
}

/**
 * The server fails a whole report whose context is not plain JSON, and JSON.stringify throws on
 * bigint and cycles, which would lose the whole batch: so the context goes through JSON here, with
 * those made printable. A non-object context is kept under `value`.
 */
export function jsonContext(context: unknown): Record<string, unknown> {
  if (context === undefined || context === null) return {};
  const seen = new WeakSet<object>();
  let json: string | undefined;
  try {
    json = JSON.stringify(context, (_key, value: unknown) => {
      if (typeof value === 'bigint') return value.toString();
      if (value instanceof Error) return { name: errorClassOf(value), message: value.message };
      if (typeof value === 'object' && value !== null) {
        if (seen.has(value)) return '[Circular]';
        seen.add(value);
      }
      return value;
    });
  } catch (error) {
    return { context_unserializable: describe(error instanceof Error ? error.message : error) };
  }
  if (json === undefined) return {};
  if (json.length > LIMITS.contextJson) {
    return { context_dropped: `context JSON over ${LIMITS.contextJson} characters` };
  }
  const parsed: unknown = JSON.parse(json);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : { value: parsed };
}

export function buildReport(
  error: unknown,
  defaults: ReportDefaults,
  context?: Record<string, unknown>,
  extra?: RequestFields,
  now: Date = new Date(),
): ErrorReport {
  const like = errorLike(error);
  const report: ErrorReport = {
    error_class: cut(errorClassOf(error), LIMITS.errorClass),
    message: cut(like ? like.message : describe(error), LIMITS.message),
    backtrace: like ? backtraceOf(like.stack) : [],
    context: jsonContext(context),
    occurred_at: now.toISOString(),
  };
  const fields: [keyof ErrorReport, string | undefined][] = [
    ['environment', optional(defaults.environment, LIMITS.environment)],
    ['app_version', optional(defaults.appVersion, LIMITS.appVersion)],
    ['url', optional(extra?.url, LIMITS.url)],
    ['request_method', optional(extra?.request_method, LIMITS.requestMethod)],
    ['request_path', optional(extra?.request_path, LIMITS.requestPath)],
  ];
  // Absent rather than undefined keys, so a report compares and logs cleanly.
  for (const [key, value] of fields)
    if (value !== undefined) Object.assign(report, { [key]: value });
  return report;
}
