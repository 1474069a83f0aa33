import { ERROR_SOURCES, ERROR_STATUSES } from '@ferry/db';
import { z } from 'zod';
import { occurrenceDetailSchema } from './detail.js';
import { occurrenceFieldsSchema } from './occurrence.js';

/**
 * The read API's answers about errors, as zod schemas (issue 46): the OpenAPI description is
 * generated from them, and the JSON functions' types are inferred from them, so the description
 * cannot drift from what the code writes.
 */

const when = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601, UTC.' });

export const errorGroupJsonSchema = z
  .object({
    id: z.string().meta({ example: 'egr_01m95vcs448p8d8nkpkmbpan9e' }),
    error_class: z.string().meta({ example: 'TypeError' }),
    latest_message: z
      .string()
      .meta({ example: "Cannot read properties of undefined (reading 'total')" }),
    source: z.enum(ERROR_SOURCES),
    occurrence_count: z.number().int().min(0),
    first_seen_at: when,
    last_seen_at: when,
    status: z.enum(ERROR_STATUSES),
    regressed_at: when.nullable().meta({
      description: 'When the group last came back after being resolved; null once triaged again.',
    }),
    environments: z.array(z.string()),
    assignee_id: z
      .string()
      .nullable()
      .meta({ description: 'The member the group is assigned to; null: nobody.' }),
    first_release: z.string().nullable(),
    last_release: z.string().nullable(),
    resolved_in_release: z.string().nullable().meta({
      description:
        'Set by "resolve in next release": occurrences on it or older releases do not reopen the group.',
    }),
  })
  .meta({ id: 'ErrorGroup' });

export type ErrorGroupJson = z.infer<typeof errorGroupJsonSchema>;

/** An occurrence as the read API answers it: its report fields (occurrence.ts) and the rest. */
export const errorOccurrenceJsonSchema = occurrenceFieldsSchema
  .extend({
    id: z.string().meta({ example: 'err_01m95vf7e1wft897bnf3hv3khf' }),
    group_id: z.string(),
    backtrace: z.array(z.string()).meta({ description: 'Top frame first.' }),
    occurred_at: when,
    received_at: when,
    // The queue's check of a source is a custom one; the answer names the values.
    source: z.enum(ERROR_SOURCES),
    visitor_id: z.string().nullable(),
    detail: occurrenceDetailSchema.nullable().meta({
      description:
        'Frames with code (mapped through uploaded source maps), exception chain, breadcrumbs, tags, user, request; null for a report without them.',
    }),
  })
  .meta({ id: 'ErrorOccurrence' });

export type ErrorOccurrenceJson = z.infer<typeof errorOccurrenceJsonSchema>;

export const groupFingerprintJsonSchema = z.object({
  fingerprint: z.string(),
  own: z.boolean().meta({ description: 'The fingerprint the group was made from.' }),
  merged_group_id: z.string().nullable(),
  error_class: z.string(),
  latest_message: z.string(),
  occurrence_count: z.number().int().nullable(),
  merged_at: when.nullable(),
  merged_by: z.string().nullable(),
});

export type GroupFingerprintJson = z.infer<typeof groupFingerprintJsonSchema>;

/** GET /api/v1/errors: one page of groups, newest activity first. */
export const errorGroupListJsonSchema = z.object({
  groups: z.array(errorGroupJsonSchema),
  page: z.number().int().min(1),
  per_page: z.number().int(),
  total_groups: z.number().int().min(0),
  total_occurrences: z.number().int().min(0).meta({
    description: 'Occurrences the workspace retains, across all groups.',
  }),
});
