import { z } from 'zod';
import { ERROR_SOURCES, type ErrorSource } from '@ferry/db';

/**
 * One stored error occurrence, written once (issue 40): the fields a report becomes (SPEC.md's
 * error report table) and the caps each is cut to. The ingest service coerces reports into this
 * shape (services/ingest-errors report.ts) and checks queued ones against the schema; the read API
 * answers it (errorOccurrenceJson in errors.ts); the table itself is declared in @ferry/db.
 */

/** Per-field caps of one occurrence, in characters unless named otherwise. */
export const OCCURRENCE_LIMITS = {
  errorClass: 200,
  message: 1_000,
  backtraceLines: 30,
  backtraceLine: 400,
  backtraceTotal: 8_000,
  url: 600,
  requestMethod: 10,
  requestPath: 500,
  environment: 40,
  appVersion: 40,
  contextKeys: 30,
  contextKey: 60,
  contextValue: 500,
  /** Nesting below a context key; a deeper object or array is cut to a marker (ingest's `nested`). */
  contextDepth: 32,
} as const;

/**
 * The report-derived fields of one occurrence, as they travel (JSON: `occurred_at` is ISO 8601 in
 * UTC, so the shape survives a round trip through the queue unchanged). `message` is '' when the
 * report has none; `backtrace` holds non-blank lines, top frame first ([] when there are none).
 */
export const occurrenceFieldsSchema = z.object({
  error_class: z.string().min(1),
  message: z.string(),
  backtrace: z.array(z.string()),
  url: z.string().nullable(),
  request_method: z.string().nullable(),
  request_path: z.string().nullable(),
  environment: z.string().nullable(),
  app_version: z.string().nullable(),
  context: z.record(z.string(), z.unknown()),
  occurred_at: z.iso.datetime({ offset: true }),
  source: z.custom<ErrorSource>((value) => ERROR_SOURCES.some((source) => source === value)),
});

export type OccurrenceFields = z.infer<typeof occurrenceFieldsSchema>;
