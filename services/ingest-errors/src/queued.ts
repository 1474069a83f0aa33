import { z } from 'zod';
import { isId } from '@ferry/core';
import { occurrenceDetailSchema, occurrenceFieldsSchema } from '@ferry/workspace';

/**
 * One report as it travels on the `error-ingest` queue: already coerced, cut and scrubbed, with
 * the occurrence id given at accept time. The catalog keeps reports loose (the queue package does
 * not know this shape); the worker checks them against this schema, so a job written by an older
 * or broken producer fails loudly instead of storing something odd. The occurrence's fields are
 * @ferry/workspace's occurrenceFieldsSchema, the type parseBatch returns.
 *
 * The fingerprint is the writer's (issue 41: it maps frames through source maps first); `grouping`
 * says which frame and message a Sentry event groups by. Jobs queued before that change carry the
 * fingerprint they were given at accept time, and it is kept.
 */
export const groupingHintSchema = z.object({
  frame: z.number().int().min(0).nullable(),
  message: z.string().optional(),
});

export const queuedReportSchema = z.object({
  id: z.string().refine((value) => isId(value, 'errorOccurrence'), 'expected an occurrence id'),
  fingerprint: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 hex digest')
    .optional(),
  grouping: groupingHintSchema.optional(),
  detail: occurrenceDetailSchema.optional(),
  ...occurrenceFieldsSchema.shape,
});

export type QueuedReport = z.infer<typeof queuedReportSchema>;
