import { ERROR_SOURCES, isErrorSource, type ErrorSource } from '@ferry/db';
import { storable, truncate } from '@ferry/core';
import { OCCURRENCE_LIMITS, type OccurrenceFields } from '@ferry/workspace';

/**
 * One raw report -> the shape we store, exactly per SPEC.md's error report table. Pure: no I/O,
 * the clock is the caller's `receivedAt`.
 *
 * Hand-written rather than a zod schema: every field is coerced and cut (surrogate-safe, first N
 * keys, a running total over lines), so a schema would be all transforms; this is also the hot path
 * of ingestion (thousands of reports a second), where one plain pass is cheapest.
 */

/** Re-exported for callers of this module; the list itself lives with the table types. */
export const SOURCES = ERROR_SOURCES;

/** The request's caps, around the per-field caps of one occurrence (@ferry/workspace). */
export const LIMITS = {
  reportsPerRequest: 10,
  ...OCCURRENCE_LIMITS,
  futureSkewMs: 60 * 60 * 1000,
} as const;

export const UNKNOWN_ERROR_CLASS = 'UnknownError';

/** One report as parseBatch leaves it: the occurrence's fields, defined once in @ferry/workspace. */
export type StoredReport = OccurrenceFields;

export interface ParsedBatch {
  reports: StoredReport[];
  /** Items among the first 10 that failed validation (a body that is no report at all counts 1). */
  dropped: number;
  /** Items past the first 10, not looked at. */
  ignored: number;
}

/** A field value that makes the whole report fail validation. */
const INVALID = Symbol('invalid');
type Checked<T> = T | typeof INVALID;

type Plain = Record<string, unknown>;

/** An object as JSON.parse makes one (not an array, not a class instance). */
export function isPlainObject(value: unknown): value is Plain {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A string field: null/absent -> null; strings, numbers and booleans -> their string, cut to `max`.
 * Objects and arrays cannot be read as a string: the report fails, as it does for a non-object
 * context or backtrace, rather than losing the field quietly.
 */
function text(value: unknown, max: number): Checked<string | null> {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return truncate(storable(value), max);
  if (typeof value === 'number' || typeof value === 'boolean') return truncate(String(value), max);
  return INVALID;
}

function errorClass(value: unknown): Checked<string> {
  const cut = text(value, LIMITS.errorClass);
  if (cut === INVALID) return INVALID;
  return cut === null || cut.trim() === '' ? UNKNOWN_ERROR_CLASS : cut;
}

/**
 * Array of lines, or one string split on \n, \r\n or \r. Each line is cut to 400 and dropped when
 * blank (it is no frame, and a trailing newline should not count as a line); of the rest the first
 * 30 are kept, and while the running total would pass 8,000 the line that crosses it is cut to what is
 * left and nothing after it is kept. So the joined result is always a prefix of the joined
 * per-line-cut input. Items past the 30th line are not looked at, so they cannot fail the report.
 */
function backtrace(value: unknown): Checked<string[]> {
  if (value === null || value === undefined) return [];
  let items: unknown[];
  if (typeof value === 'string') items = value.split(/\r\n|\r|\n/);
  else if (Array.isArray(value)) items = value;
  else return INVALID;
  const lines: string[] = [];
  let total = 0;
  for (const item of items) {
    if (lines.length === LIMITS.backtraceLines || total === LIMITS.backtraceTotal) break;
    const line = text(item, LIMITS.backtraceLine);
    if (line === INVALID) return INVALID;
    if (line === null || line.trim() === '') continue;
    const kept = truncate(line, LIMITS.backtraceTotal - total);
    if (kept === '') break;
    lines.push(kept);
    total += kept.length;
    if (kept.length < line.length) break;
  }
  return lines;
}

/** Lines already made (a Sentry event's frames, mapped) cut by SPEC.md's backtrace rules. */
export function cutBacktrace(lines: readonly string[]): string[] {
  const cut = backtrace(lines);
  return cut === INVALID ? [] : cut;
}

/** What stands in for an object or array nested past LIMITS.contextDepth, so the cut shows. */
export const NESTING_MARKER = `[truncated: nested deeper than ${LIMITS.contextDepth}]`;

/**
 * Nested context data, kept as given except for what Postgres cannot store: strings (and keys)
 * made storable, non-finite numbers (JSON.parse yields Infinity for 1e400) as null, which is what
 * JSON would write anyway. An object or array deeper than LIMITS.contextDepth becomes
 * NESTING_MARKER: Postgres's jsonb parser has a stack limit (a report past it would fail its
 * whole write batch) and this walk recurses, but the rest of the report is still worth keeping.
 * Object.fromEntries (not assignment) so a `__proto__` key stays a plain key.
 */
function nested(value: unknown, depth: number): Checked<unknown> {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') return storable(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (depth > LIMITS.contextDepth && (Array.isArray(value) || isPlainObject(value))) {
    return NESTING_MARKER;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const kept = nested(item, depth + 1);
      if (kept === INVALID) return INVALID;
      out.push(kept);
    }
    return out;
  }
  if (isPlainObject(value)) {
    const entries: [string, unknown][] = [];
    for (const [key, item] of Object.entries(value)) {
      const kept = nested(item, depth + 1);
      if (kept === INVALID) return INVALID;
      entries.push([storable(key), kept]);
    }
    return Object.fromEntries(entries);
  }
  return INVALID; // undefined, bigint, functions...: never in JSON
}

/**
 * An object (null/absent -> {}; anything else fails the report). The first 30 keys in the object's
 * own order (JSON order, except that JS lists integer-like keys first), each cut to 60; when two
 * keys are equal after the cut the first keeps its place and the later one is dropped, so fewer
 * than 30 keys may remain. Top-level strings are cut to 500; numbers, booleans and null are kept
 * as they are (the longest JS number string is 24 characters, so the 500 cap holds for them too).
 */
function context(value: unknown): Checked<Record<string, unknown>> {
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) return INVALID;
  const entries: [string, unknown][] = [];
  const seen = new Set<string>();
  for (const rawKey of Object.keys(value).slice(0, LIMITS.contextKeys)) {
    const key = truncate(storable(rawKey), LIMITS.contextKey);
    if (seen.has(key)) continue;
    const raw = value[rawKey];
    const kept =
      typeof raw === 'string' ? truncate(storable(raw), LIMITS.contextValue) : nested(raw, 1);
    if (kept === INVALID) return INVALID;
    seen.add(key);
    entries.push([key, kept]);
  }
  return Object.fromEntries(entries);
}

// Below 1e11 a number is read as seconds (1e11 s is the year 5138; 1e11 ms is March 1973), so
// both Ruby/Python float seconds and JS milliseconds work.
const SECONDS_BELOW = 1e11;
const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;
// An ISO date-time without an offset: read as UTC, not as the server's local time.
const ISO_NO_OFFSET = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(:\d{2}(\.\d+)?)?)$/;

function epochMs(value: number): number {
  return Math.abs(value) < SECONDS_BELOW ? value * 1000 : value;
}

function parseTime(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return epochMs(value);
  if (typeof value !== 'string') return NaN;
  const trimmed = value.trim();
  if (NUMERIC.test(trimmed)) return epochMs(Number(trimmed));
  const iso = ISO_NO_OFFSET.exec(trimmed);
  return Date.parse(iso ? `${iso[1]}T${iso[2]}Z` : trimmed);
}

/**
 * Numbers are epoch seconds or milliseconds (see SECONDS_BELOW), numeric strings likewise, other
 * strings whatever Date.parse reads. Unparseable, more than an hour after `receivedAt`, or before
 * 1970 (no error happened then, and it keeps every value one Postgres and ISO strings both hold)
 * -> `receivedAt`.
 */
function occurredAt(value: unknown, receivedAt: Date): string {
  const ms = parseTime(value);
  const ok = Number.isFinite(ms) && ms >= 0 && ms <= receivedAt.getTime() + LIMITS.futureSkewMs;
  return new Date(ok ? ms : receivedAt.getTime()).toISOString();
}

/** One of the seven, exactly (case included); any other value -> 'api'. */
export function toSource(value: unknown): ErrorSource {
  return isErrorSource(value) ? value : 'api';
}

function allValid<T extends Record<string, unknown>>(
  fields: T,
): fields is { [K in keyof T]: Exclude<T[K], typeof INVALID> } {
  return Object.values(fields).every((value) => value !== INVALID);
}

/**
 * One report, or undefined when it fails validation. `batchSource` is the request's top-level
 * `source`; the report's own one, when present (not null), overrides it even when it is not one of
 * the seven (then it is recorded as 'api', as SPEC.md says of any other value).
 */
export function coerceReport(
  raw: unknown,
  batchSource: unknown,
  receivedAt: Date,
): StoredReport | undefined {
  if (!isPlainObject(raw)) return undefined;
  const fields = {
    error_class: errorClass(raw.error_class),
    message: text(raw.message, LIMITS.message),
    backtrace: backtrace(raw.backtrace),
    url: text(raw.url, LIMITS.url),
    request_method: text(raw.request_method, LIMITS.requestMethod),
    request_path: text(raw.request_path, LIMITS.requestPath),
    environment: text(raw.environment, LIMITS.environment),
    app_version: text(raw.app_version, LIMITS.appVersion),
    context: context(raw.context),
  } as const; // `as const` keeps INVALID's unique-symbol type, so the guard can exclude it
  if (!allValid(fields)) return undefined;
  return {
    ...fields,
    message: fields.message ?? '',
    occurred_at: occurredAt(raw.occurred_at, receivedAt),
    source: toSource(raw.source ?? batchSource),
  };
}

/**
 * A request body: one report object, or `{errors: [...], source?}` (recognised by `errors` being an
 * array; otherwise the object is read as one report). "At most 10 reports per request; extras are
 * ignored": the first 10 items are the request's reports, and an invalid one among them is dropped
 * rather than replaced by an 11th, so what a client's 11th item does never depends on the others.
 */
export function parseBatch(body: unknown, receivedAt: Date): ParsedBatch {
  const batch = isPlainObject(body) && Array.isArray(body.errors) ? body.errors : undefined;
  const items: unknown[] = batch ?? [body];
  const batchSource = batch && isPlainObject(body) ? body.source : undefined;
  const reports: StoredReport[] = [];
  let dropped = 0;
  for (const item of items.slice(0, LIMITS.reportsPerRequest)) {
    const report = coerceReport(item, batchSource, receivedAt);
    if (report) reports.push(report);
    else dropped += 1;
  }
  return { reports, dropped, ignored: Math.max(0, items.length - LIMITS.reportsPerRequest) };
}
