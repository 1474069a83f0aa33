import { ERROR_STATUSES, type DispatchStatus } from '@ferry/db';
import { z } from 'zod';
import { FEEDBACK_STATUSES } from './feedback-triage.js';

/**
 * The feedback API's answers as zod schemas (issue 46): the OpenAPI description is generated from
 * them and the JSON functions' types are inferred from them, so the two cannot drift apart.
 */

const when = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601, UTC.' });

const DISPATCH_STATUSES = [
  'queued',
  'issue_opened',
  'agent_started',
  'assigned',
  'pr_opened',
  'waiting_on_user',
  'completed',
  'failed',
] as const satisfies readonly DispatchStatus[];

/** One element of a ticket's `dispatches` array (DESIGN.md's dispatch object). */
export const dispatchJsonSchema = z
  .object({
    id: z.string().meta({ example: 'dsp_01m95vf7e1wft897bnf3hv3khf' }),
    repo_id: z.string(),
    status: z.enum(DISPATCH_STATUSES),
    task_state: z.string().nullable().meta({ description: 'The coding agent’s own task state.' }),
    issue_url: z.string().nullable(),
    pr_url: z.string().nullable(),
    error: z.string().nullable().meta({ description: 'Why it failed; null unless `failed`.' }),
    created_at: when,
    updated_at: when,
  })
  .meta({ id: 'Dispatch' });
export type DispatchJson = z.infer<typeof dispatchJsonSchema>;

/** The API's ticket shape; mirrors the POST body so a client reads back what it sent. */
export const feedbackJsonSchema = z
  .object({
    id: z.string().meta({ example: 'fbk_01m95vcs448p8d8nkpkmbpan9e' }),
    status: z.enum(FEEDBACK_STATUSES),
    assignee: z
      .object({ id: z.string(), name: z.string() })
      .nullable()
      .meta({ description: 'The member who triages it; null while nobody is assigned.' }),
    title: z.string().nullable(),
    note: z.string(),
    reporter: z.object({
      label: z.string().nullable(),
      role: z.string().nullable(),
      email: z.string().nullable(),
    }),
    page: z.object({
      url: z.string().nullable(),
      path: z.string().nullable(),
      controller_action: z.string().nullable(),
      viewport: z.object({
        width: z.number().int().nullable(),
        height: z.number().int().nullable(),
      }),
      partials: z.array(z.string()),
    }),
    element: z.object({
      selector: z.string().nullable(),
      tag: z.string().nullable(),
      text: z.string().nullable(),
      outer_html: z.string().nullable(),
    }),
    conversation: z.object({ room_id: z.string() }),
    visitor_id: z.string().nullable().meta({
      description: 'The widget visitor who filed it; null for tickets filed through the API.',
    }),
    error_group_id: z.string().nullable().meta({
      description: 'The error group it was filed from with "Fix with agent"; null otherwise.',
    }),
    created_at: when,
    updated_at: when,
  })
  .meta({ id: 'Feedback' });
export type FeedbackJson = z.infer<typeof feedbackJsonSchema>;

/** A ticket's linked error group (issue 45). */
export const linkedErrorJsonSchema = z
  .object({
    group_id: z.string(),
    error_class: z.string(),
    message: z.string(),
    status: z.enum(ERROR_STATUSES),
    count: z.number().int().min(0),
    last_seen_at: when,
    linked_by: z.enum(['visitor', 'hand']).meta({
      description:
        '"visitor": the reporter hit this error within 10 minutes of the report; "hand": a member linked it.',
    }),
    visitor_occurrences: z.number().int().min(0),
  })
  .meta({ id: 'LinkedError' });
export type LinkedErrorJson = z.infer<typeof linkedErrorJsonSchema>;

/** The one-ticket answer (`GET /api/v1/feedback/:id`, POST, PATCH): callers poll `dispatches`. */
export const ticketJsonSchema = feedbackJsonSchema.extend({
  dispatches: z.array(dispatchJsonSchema).meta({ description: 'Oldest first.' }),
});
export const ticketWithLinksJsonSchema = ticketJsonSchema
  .extend({ linked_errors: z.array(linkedErrorJsonSchema) })
  .meta({ id: 'Ticket' });
