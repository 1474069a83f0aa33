import { z } from 'zod';
import { isId } from '@ferry/core';
import type { ErrorSource } from '@ferry/db';
import { SOURCES, type StoredReport } from './report.js';

/**
 * One report as it travels on the `error-ingest` queue: already coerced and cut by parseBatch, with
 * the occurrence id and the fingerprint given at accept time. The catalog keeps reports loose
 * (the queue package does not know this shape); the worker checks them against this schema, so a
 * job written by an older or broken producer fails loudly instead of storing something odd.
 */
export const queuedReportSchema = z.object({
  id: z.string().refine((value) => isId(value, 'errorOccurrence'), 'expected an occurrence id'),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 hex digest'),
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
  source: z.custom<ErrorSource>((value) => SOURCES.some((source) => source === value)),
});

export type QueuedReport = z.infer<typeof queuedReportSchema>;

/** Compile-time check that the queue shape and parseBatch's output stay the same fields. */
export type _SameFields =
  Omit<QueuedReport, 'id' | 'fingerprint'> extends StoredReport
    ? StoredReport extends Omit<QueuedReport, 'id' | 'fingerprint'>
      ? true
      : never
    : never;
