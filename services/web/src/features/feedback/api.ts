import { AppError, isId } from '@ferry/core';
import { parseInput, requireJsonBody, routeTable, type RouteTable } from '@ferry/http';
import { tokenScope } from '../../shared/access.js';
import { z } from 'zod';
import type { WebDeps } from '../../deps.js';
import {
  FEEDBACK_PAGE_SIZE,
  FEEDBACK_STATUSES,
  feedbackJson,
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
    .transform((value) => (value === 'all' ? undefined : value)),
  // A token is a workspace, not a person, so there is no "me" here (the inbox page has one).
  assignee: z
    .string()
    .refine((value) => value === 'none' || isId(value, 'member'), 'Must be a member id or "none".')
    .optional(),
  q: z.string('Must be text.').max(200, 'At most 200 characters.').optional(),
});

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

  routes.post('/', write, async (req, res) => {
    const { workspace } = apiAuth(res);
    const input = parseInput(fileFeedbackSchema, req.body, 'feedback');
    const feedback = await fileFeedback(db, workspace.id, input);
    res
      .status(201)
      .location(`/api/v1/feedback/${feedback.id}`)
      .json(await ticketWithLinks(feedback));
  });

  routes.get('/', read, async (req, res) => {
    const { workspace } = apiAuth(res);
    const query = parseInput(listQuerySchema, req.query, 'query');
    const page = await listFeedback(db, workspace.id, query);
    // The list stays one query: dispatches are only on the single-ticket read.
    res.json({
      feedback: page.items.map(feedbackJson),
      page: page.page,
      per_page: FEEDBACK_PAGE_SIZE,
      has_more: page.hasMore,
    });
  });

  routes.get('/:id', read, async (req, res) => {
    const { workspace } = apiAuth(res);
    const feedback = await findFeedback(db, workspace.id, req.params.id);
    if (!feedback) throw new AppError('not_found', 'No such feedback ticket in this workspace.');
    res.json(await ticketWithLinks(feedback));
  });

  routes.patch('/:id', write, async (req, res) => {
    const { workspace } = apiAuth(res);
    const id = req.params.id;
    // An unknown ticket is 404 before the body is judged, as on the other ticket routes.
    if (!(await findFeedback(db, workspace.id, id))) {
      throw new AppError('not_found', 'No such feedback ticket in this workspace.');
    }
    const change = parseInput(triageSchema, req.body, 'change');
    await triageFeedback(db, {
      workspaceId: workspace.id,
      feedbackId: id,
      actor: { kind: 'api' },
      change,
    });
    const feedback = await findFeedback(db, workspace.id, id);
    if (!feedback) throw new AppError('not_found', 'No such feedback ticket in this workspace.');
    res.json(await ticketWithLinks(feedback));
  });

  return routes;
}
