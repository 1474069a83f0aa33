import { z } from 'zod';
import { isId } from '@ferry/core';
import { occurrenceFieldsSchema } from '@ferry/workspace';

/**
 * One report as it travels on the `error-ingest` queue: already coerced and cut by parseBatch, with
 * the occurrence id and the fingerprint given at accept time. The catalog keeps reports loose
 * (the queue package does not know this shape); the worker checks them against this schema, so a
 * job written by an older or broken producer fails loudly instead of storing something odd. The
 * occurrence's fields are @ferry/workspace's occurrenceFieldsSchema, the type parseBatch returns.
 */
export const queuedReportSchema = z.object({
  id: z.string().refine((value) => isId(value, 'errorOccurrence'), 'expected an occurrence id'),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 hex digest'),
  ...occurrenceFieldsSchema.shape,
});

export type QueuedReport = z.infer<typeof queuedReportSchema>;
