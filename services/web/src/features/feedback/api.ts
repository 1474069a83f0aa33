import { AppError, isId } from '@ferry/core';
import { inputOf, requireJsonBody, routeTable, type RouteTable } from '@ferry/http';
import type { RequestHandler } from 'express';
import { tokenScope } from '../../shared/access.js';
import { z } from 'zod';
import type { WebDeps } from '../../deps.js';
import {
  FEEDBACK_PAGE_SIZE,
  FEEDBACK_STATUSES,
  feedbackJson,
  feedbackJsonSchema,
  ticketWithLinksJsonSchema,
  fileFeedback,
  fileFeedbackSchema,
  findFeedback,
  listFeedback,
  ticketJson,
  type Ticket,
  triageFeedback,
  triageSchema,
  apiAuth,
  linkedErrorJson,
  ticketErrorGroups,
} from '@ferry/workspace';

const listQuerySchema = z.object({
  page: z.coerce
    .number('Must be a page number.')
    .int('Must be a page number.')
    .min(1, 'Must be a page number from 1.')
    .max(10_000, 'Must be at most 10,000.')
    .default(1),
  status: z
    .enum([...FEEDBACK_STATUSES, 'all'], 'Must be "new", "triaged", "closed" or "all".')
    .optional()
    .transform((value) => (value === 'all' ? undefined : value))
    .meta({ description: 'Every status when absent or `all`.' }),
  // A token is a workspace, not a person, so there is no "me" here (the inbox page has one).
  assignee: z
    .string()
    .refine((value) => value === 'none' || isId(value, 'member'), 'Must be a member id or "none".')
    .optional()
    .meta({ description: 'A member id, or `none` for the unassigned tickets.' }),
  q: z
    .string('Must be text.')
    .max(200, 'At most 200 characters.')
    .optional()
    .meta({ description: 'Text found in the note, the reporter’s label or email (any case).' }),
});

const ticketParams = z.object({
  id: z.string().meta({ example: 'fbk_01m95vcs448p8d8nkpkmbpan9e' }),
});

const ticketAnswer = {
  description: 'The ticket with its dispatches (oldest first) and its linked error groups.',
  schema: ticketWithLinksJsonSchema,
};

/**
 * /api/v1/feedback: file a ticket (`tenant:write`), read one or a page of them (`tenant:read`,
 * which `tenant:write` implies), triage one (`PATCH`, `tenant:write`: status and assignee). Everything is scoped to the token's workspace; a ticket of
 * another workspace is "not found", exactly like one that never existed.
 * `POST /:id/dispatch` belongs to the dispatch service and is not answered here.
 */
export function feedbackApi(deps: WebDeps): RouteTable {
  const { db } = deps;
  const routes = routeTable();
  /** A ticket as every one-ticket answer gives it, with its linked error groups (issue 45). */
  const ticketWithLinks = async (feedback: Ticket) => {
    const [ticket, linked] = await Promise.all([
      ticketJson(db, feedback),
      ticketErrorGroups(db, feedback.workspace_id, feedback.id),
    ]);
    return { ...ticket, linked_errors: linked.map(linkedErrorJson) };
  };
  const write = { access: tokenScope(deps, 'tenant:write'), before: [requireJsonBody] };
  const read = tokenScope(deps, 'tenant:read');

  routes.post(
    '/',
    {
      ...write,
      doc: {
        summary: 'File a feedback ticket',
        description:
          'Files a ticket with its own conversation room; connected agents hear about it. `note` is the feedback itself; the rest is context a coding agent receives with it.',
        tag: 'Feedback',
        security: 'bearer',
        body: fileFeedbackSchema,
        bodyName: 'feedback',
        responses: {
          201: {
            ...ticketAnswer,
            description: 'Filed.',
            headers: { Location: 'The ticket: `/api/v1/feedback/<id>`.' },
          },
        },
      },
    },
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      const input = inputOf(res.locals, 'body', fileFeedbackSchema);
      const feedback = await fileFeedback(db, workspace.id, input);
      res
        .status(201)
        .location(`/api/v1/feedback/${feedback.id}`)
        .json(await ticketWithLinks(feedback));
    },
  );

  routes.get(
    '/',
    {
      access: read,
      doc: {
        summary: 'List feedback tickets',
        description: 'One page of the workspace’s tickets, newest first, without their dispatches.',
        tag: 'Feedback',
        security: 'bearer',
        query: listQuerySchema,
        responses: {
          200: {
            description: 'A page of tickets.',
            schema: z.object({
              feedback: z.array(feedbackJsonSchema),
              page: z.number().int().min(1),
              per_page: z.number().int(),
              has_more: z.boolean(),
            }),
          },
        },
      },
    },
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      const query = inputOf(res.locals, 'query', listQuerySchema);
      const page = await listFeedback(db, workspace.id, query);
      // The list stays one query: dispatches are only on the single-ticket read.
      res.json({
        feedback: page.items.map(feedbackJson),
        page: page.page,
        per_page: FEEDBACK_PAGE_SIZE,
        has_more: page.hasMore,
      });
    },
  );

  routes.get(
    '/:id',
    {
      access: read,
      doc: {
        summary: 'Get a feedback ticket',
        description:
          'The ticket including its `dispatches` array: poll it to watch a dispatch’s progress.',
        tag: 'Feedback',
        security: 'bearer',
        params: ticketParams,
        responses: { 200: ticketAnswer },
      },
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const feedback = await findFeedback(db, workspace.id, req.params.id);
      if (!feedback) throw new AppError('not_found', 'No such feedback ticket in this workspace.');
      res.json(await ticketWithLinks(feedback));
    },
  );

  // An unknown ticket is 404 before the body is judged, as on the other ticket routes: checked
  // here, ahead of the doc's body validation.
  const ticketExists: RequestHandler = async (req, res, next) => {
    const { workspace } = apiAuth(res);
    if (!(await findFeedback(db, workspace.id, String(req.params.id)))) {
      throw new AppError('not_found', 'No such feedback ticket in this workspace.');
    }
    next();
  };

  routes.patch(
    '/:id',
    {
      ...write,
      before: [...write.before, ticketExists],
      doc: {
        summary: 'Triage a feedback ticket',
        description:
          'Sets its status, its assignee (`null` unassigns) or both; each change is also a message in the ticket’s conversation. Other keys are refused.',
        tag: 'Feedback',
        security: 'bearer',
        params: ticketParams,
        body: triageSchema,
        bodyName: 'change',
        responses: { 200: { ...ticketAnswer, description: 'The ticket as changed.' } },
      },
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const id = req.params.id;
      const change = inputOf(res.locals, 'body', triageSchema);
      await triageFeedback(db, {
        workspaceId: workspace.id,
        feedbackId: id,
        actor: { kind: 'api' },
        change,
      });
      const feedback = await findFeedback(db, workspace.id, id);
      if (!feedback) throw new AppError('not_found', 'No such feedback ticket in this workspace.');
      res.json(await ticketWithLinks(feedback));
    },
  );

  return routes;
}
