import { AppError } from '@ferry/core';
import { inputOf, requireJsonBody, routeTable, type RouteTable } from '@ferry/http';
import { tokenScope } from '../../shared/access.js';
import { z } from 'zod';
import type { WebDeps } from '../../deps.js';
import {
  ERROR_GROUPS_PAGE_SIZE,
  ERROR_SOURCES,
  ERROR_STATUSES,
  errorGroupJson,
  errorOccurrenceJson,
  findErrorGroup,
  findErrorOccurrence,
  latestOccurrences,
  listErrorGroups,
  retainedOccurrences,
  SEARCH_QUERY_MAX,
  newestRelease,
  resolveInNextRelease,
  setErrorGroupStatus,
  apiAuth,
  assignErrorGroup,
  assigneeIdSchema,
  fileTicketForErrorGroup,
  ticketJson,
  withMappedDetail,
  errorBulkActionJson,
  errorBulkActionJsonSchema,
  errorBulkRequestSchema,
  findErrorBulkAction,
  runSmallErrorBulkAction,
  startErrorBulkAction,
  API_ACTOR,
  groupTickets,
  groupTicketsJson,
  groupTicketsJsonSchema,
  errorGroupJsonSchema,
  errorGroupListJsonSchema,
  errorOccurrenceJsonSchema,
  ticketJsonSchema,
} from '@ferry/workspace';
import {
  findErrorGroupOrHolder,
  groupWithFingerprintsSchema,
  mergeRoutes,
  withMergedFingerprints,
} from './merge-api.js';

/** `?source=&page=` as a form would send them: an empty value means "not given". */
const blankAsMissing = (value: unknown): unknown => (value === '' ? undefined : value);

const listQuerySchema = z.object({
  page: z.preprocess(
    blankAsMissing,
    z.coerce
      .number('Must be a page number.')
      .int('Must be a page number.')
      .min(1, 'Must be a page number from 1.')
      .max(10_000, 'Must be at most 10,000.')
      .default(1),
  ),
  source: z.preprocess(
    blankAsMissing,
    z.enum(ERROR_SOURCES, `Must be one of ${ERROR_SOURCES.join(', ')}.`).optional(),
  ),
  // Every status unless asked: the list answered without one before triage existed.
  status: z.preprocess(
    blankAsMissing,
    z
      .enum([...ERROR_STATUSES, 'all'], `Must be one of ${[...ERROR_STATUSES, 'all'].join(', ')}.`)
      .default('all')
      .transform((status) => (status === 'all' ? undefined : status)),
  ),
  environment: z.preprocess(
    blankAsMissing,
    z.string('Must be one environment.').max(40, 'Must be at most 40 characters.').optional(),
  ),
  // The search grammar (README, "Searching errors"); checked by listErrorGroups, which answers a
  // 422 naming the bad token. Absent: every group, as before the grammar existed.
  q: z.preprocess(
    blankAsMissing,
    z
      .string('Must be one search text.')
      .max(SEARCH_QUERY_MAX, `Must be at most ${SEARCH_QUERY_MAX} characters.`)
      .optional(),
  ),
});

const groupParams = z.object({
  groupId: z.string().meta({ example: 'egr_01m95vcs448p8d8nkpkmbpan9e' }),
});

/** `status`, `assignee_id` (issue 43; null unassigns) or both; before 43 `status` was required. */
const groupChangeSchema = z
  .object(
    {
      status: z.enum(ERROR_STATUSES, `Must be one of ${ERROR_STATUSES.join(', ')}.`).optional(),
      assignee_id: assigneeIdSchema.optional(),
      // Issue 43: with status `resolved`, held until a release newer than the newest known.
      resolve_in: z.literal('next_release', 'Must be "next_release".').optional(),
    },
    'Send a JSON object with "status", "assignee_id" or both.',
  )
  .refine((change) => change.status !== undefined || change.assignee_id !== undefined, {
    message: 'Send "status", "assignee_id" or both.',
  })
  .refine((change) => change.resolve_in === undefined || change.status === 'resolved', {
    message: '"resolve_in" goes with "status": "resolved".',
    path: ['resolve_in'],
  });

/**
 * /api/v1/errors: reads need `tenant:read` (which `tenant:write` implies); setting a group's status
 * or assignee (`PATCH /:groupId`) and filing its ticket (`POST /:groupId/feedback`) need `tenant:write`. Scoped to the token's workspace; another workspace's
 * ids answer 404 like ids that never existed.
 */
export function errorsApi(deps: WebDeps): RouteTable {
  const { db, symbolicator } = deps;
  const routes = routeTable();
  const read = tokenScope(deps, 'tenant:read');

  routes.get(
    '/',
    {
      access: read,
      doc: {
        summary: 'List error groups',
        description:
          'One page of the workspace’s error groups, the most recently seen first. `q` takes the search grammar of the Errors page (README, "Searching errors"): `is:unresolved`, `assigned:me`, `release:`, tags, free text.',
        tag: 'Errors',
        security: 'bearer',
        query: listQuerySchema,
        responses: { 200: { description: 'A page of groups.', schema: errorGroupListJsonSchema } },
      },
    },
    async (_req, res) => {
      const { workspace, token } = apiAuth(res);
      const query = inputOf(res.locals, 'query', listQuerySchema);
      const [list, retained] = await Promise.all([
        // `assigned:me` is the token's maker.
        listErrorGroups(db, workspace.id, {
          ...query,
          viewerMemberId: token.created_by ?? undefined,
        }),
        retainedOccurrences(db, workspace.id),
      ]);
      res.json({
        groups: list.groups.map(errorGroupJson),
        page: list.page,
        per_page: ERROR_GROUPS_PAGE_SIZE,
        total_groups: list.totalGroups,
        total_occurrences: retained,
      });
    },
  );

  // Issue 43: a bulk action over the groups a search matches (`q`) or named (`ids`). A small one
  // is done before the answer (200); a larger one runs as a job (202): poll its Location.
  const bulkActionAnswer = z.object({ action: errorBulkActionJsonSchema });
  const bulkLocation = { Location: 'The action to poll: `/api/v1/errors/bulk/<id>`.' };
  routes.post(
    '/bulk',
    {
      access: tokenScope(deps, 'tenant:write'),
      before: [requireJsonBody],
      doc: {
        summary: 'Act on many error groups',
        description:
          'Resolves, ignores, reopens (`unresolve`), assigns or merges the groups a search matches (`q`, the Errors page’s grammar) or the groups named (`ids`): exactly one of the two. Up to 500 groups are done before the answer (200); a larger selection runs as a job (202): poll the Location.',
        tag: 'Errors',
        security: 'bearer',
        body: errorBulkRequestSchema,
        bodyName: 'bulk action',
        responses: {
          200: {
            description: 'Done (or failed) before the answer.',
            schema: bulkActionAnswer,
            headers: bulkLocation,
          },
          202: {
            description: 'Running as a job.',
            schema: bulkActionAnswer,
            headers: bulkLocation,
          },
        },
      },
    },
    async (_req, res) => {
      const { workspace, token } = apiAuth(res);
      const body = inputOf(res.locals, 'body', errorBulkRequestSchema);
      const started = await startErrorBulkAction(db, {
        workspaceId: workspace.id,
        actor: { kind: 'api' },
        action: body.action,
        assigneeId: body.assignee_id,
        targetId: body.target_id,
        selection:
          body.q !== undefined
            ? { query: body.q, viewerMemberId: token.created_by ?? undefined }
            : { ids: body.ids ?? [] },
      });
      const action = await runSmallErrorBulkAction(db, deps.logger, started);
      const finished = action.status === 'done' || action.status === 'failed';
      res
        .status(finished ? 200 : 202)
        .location(`/api/v1/errors/bulk/${action.id}`)
        .json({ action: errorBulkActionJson(action) });
    },
  );

  routes.get(
    '/bulk/:actionId',
    {
      access: read,
      doc: {
        summary: 'Get a bulk action',
        description: 'How far a bulk action is, and how it ended.',
        tag: 'Errors',
        security: 'bearer',
        params: z.object({
          actionId: z.string().meta({ example: 'ebk_01m95vcs448p8d8nkpkmbpan9e' }),
        }),
        responses: { 200: { description: 'The action.', schema: bulkActionAnswer } },
      },
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const action = await findErrorBulkAction(db, workspace.id, String(req.params.actionId));
      if (!action) throw new AppError('not_found', 'No such bulk action in this workspace.');
      res.json({ action: errorBulkActionJson(action) });
    },
  );

  // Before /:groupId, so "occurrences" is never read as a group id.
  routes.get(
    '/occurrences/:id',
    {
      access: read,
      doc: {
        summary: 'Get one occurrence',
        description:
          'One stored occurrence with its detail; frames still minified are mapped through the source maps uploaded since.',
        tag: 'Errors',
        security: 'bearer',
        params: z.object({ id: z.string().meta({ example: 'err_01m95vf7e1wft897bnf3hv3khf' }) }),
        responses: { 200: { description: 'The occurrence.', schema: errorOccurrenceJsonSchema } },
      },
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const occurrence = await findErrorOccurrence(db, workspace.id, String(req.params.id));
      if (!occurrence)
        throw new AppError('not_found', 'No such error occurrence in this workspace.');
      const [mapped] = await withMappedDetail(symbolicator, [occurrence]);
      res.json(errorOccurrenceJson(mapped!));
    },
  );

  // Issue 43: POST /merge and POST /:groupId/unmerge (merge-api.ts); before /:groupId.
  mergeRoutes(routes, deps);

  routes.get(
    '/:groupId',
    {
      access: read,
      doc: {
        summary: 'Get an error group',
        description:
          'The group with its fingerprints, its latest occurrences (detail mapped through uploaded source maps) and the feedback tickets linked to it. An id merged away answers as the group that holds it now.',
        tag: 'Errors',
        security: 'bearer',
        params: groupParams,
        responses: {
          200: {
            description: 'The group.',
            schema: z.object({
              group: groupWithFingerprintsSchema,
              occurrences: z.array(errorOccurrenceJsonSchema),
              feedback: groupTicketsJsonSchema,
            }),
          },
        },
      },
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      // A group merged away answers as the group holding it now (merge-api.ts).
      const group = await findErrorGroupOrHolder(db, workspace.id, String(req.params.groupId));
      if (!group) throw new AppError('not_found', 'No such error group in this workspace.');
      const occurrences = await withMappedDetail(
        deps.symbolicator,
        await latestOccurrences(db, group),
      );
      const tickets = await groupTickets(db, workspace.id, group.id);
      res.json({
        group: await withMergedFingerprints(db, errorGroupJson(group), workspace.id),
        occurrences: occurrences.map(errorOccurrenceJson),
        // Issue 45: the feedback tickets linked to it, and how many different people filed them.
        feedback: groupTicketsJson(tickets),
      });
    },
  );

  routes.patch(
    '/:groupId',
    {
      access: tokenScope(deps, 'tenant:write'),
      before: [requireJsonBody],
      doc: {
        summary: 'Triage an error group',
        description:
          'Sets the group’s status, its assignee (`null` unassigns) or both. With `"status": "resolved"` and `"resolve_in": "next_release"`, occurrences on the newest known release or older do not reopen it.',
        tag: 'Errors',
        security: 'bearer',
        params: groupParams,
        body: groupChangeSchema,
        bodyName: 'error group',
        responses: {
          200: {
            description: 'The group as changed.',
            schema: z.object({ group: errorGroupJsonSchema }),
          },
        },
      },
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const groupId = String(req.params.groupId);
      const change = inputOf(res.locals, 'body', groupChangeSchema);
      // The assignment first: when it is refused (422), the status is left as it was too. And
      // "resolve in next release" needs a release: checked before the assignment is applied, so
      // a refused hold does not leave half the request done.
      let group = await findErrorGroup(db, workspace.id, groupId);
      if (!group) throw new AppError('not_found', 'No such error group in this workspace.');
      if (change.resolve_in === 'next_release') await newestRelease(db, workspace.id);
      if (change.assignee_id !== undefined) {
        group = await assignErrorGroup(db, {
          workspaceId: workspace.id,
          groupId,
          actor: { kind: 'api' },
          assigneeId: change.assignee_id,
        });
      }
      if (change.status !== undefined) {
        group =
          change.resolve_in === 'next_release'
            ? await resolveInNextRelease(db, workspace.id, groupId)
            : await setErrorGroupStatus(db, workspace.id, groupId, change.status, API_ACTOR);
        if (!group) throw new AppError('not_found', 'No such error group in this workspace.');
      }
      res.json({ group: errorGroupJson(group) });
    },
  );

  // "Fix with agent": files the group's ticket (201), or answers the one already filed (200).
  const ticketLocation = { Location: 'The ticket: `/api/v1/feedback/<id>`.' };
  routes.post(
    '/:groupId/feedback',
    {
      access: tokenScope(deps, 'tenant:write'),
      doc: {
        summary: 'File a ticket for an error group',
        description:
          '"Fix with agent": files a feedback ticket carrying the group’s error, which connected agents hear about. Once filed, the same ticket answers again (200).',
        tag: 'Errors',
        security: 'bearer',
        params: groupParams,
        responses: {
          200: {
            description: 'The ticket filed before.',
            schema: ticketJsonSchema,
            headers: ticketLocation,
          },
          201: { description: 'Filed.', schema: ticketJsonSchema, headers: ticketLocation },
        },
      },
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const filed = await fileTicketForErrorGroup(db, workspace.id, String(req.params.groupId), {
        symbolicator,
      });
      if (!filed) throw new AppError('not_found', 'No such error group in this workspace.');
      res
        .status(filed.created ? 201 : 200)
        .location(`/api/v1/feedback/${filed.ticket.id}`)
        .json(await ticketJson(db, filed.ticket));
    },
  );

  return routes;
}
