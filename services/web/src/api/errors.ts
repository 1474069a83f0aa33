import { Router } from 'express';
import { AppError } from '@ferry/core';
import { parseInput } from '@ferry/http';
import { z } from 'zod';
import type { WebDeps } from '../deps.js';
import {
  ERROR_GROUPS_PAGE_SIZE,
  ERROR_SOURCES,
  errorGroupJson,
  errorOccurrenceJson,
  findErrorGroup,
  findErrorOccurrence,
  latestOccurrences,
  listErrorGroups,
  retainedOccurrences,
  apiAuth,
  requireToken,
} from '@ferry/workspace';

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
});

/**
 * /api/v1/errors: read-only, `tenant:read` (which `tenant:write` implies). Scoped to the token's
 * workspace; another workspace's ids answer 404 like ids that never existed.
 */
export function errorsApi(deps: WebDeps): Router {
  const { db } = deps;
  const router = Router();
  router.use(requireToken(deps, 'tenant:read'));

  router.get('/', async (req, res) => {
    const { workspace } = apiAuth(res);
    const query = parseInput(listQuerySchema, req.query, 'query');
    const [list, retained] = await Promise.all([
      listErrorGroups(db, workspace.id, query),
      retainedOccurrences(db, workspace.id),
    ]);
    res.json({
      groups: list.groups.map(errorGroupJson),
      page: list.page,
      per_page: ERROR_GROUPS_PAGE_SIZE,
      total_groups: list.totalGroups,
      total_occurrences: retained,
    });
  });

  // Before /:groupId, so "occurrences" is never read as a group id.
  router.get('/occurrences/:id', async (req, res) => {
    const { workspace } = apiAuth(res);
    const occurrence = await findErrorOccurrence(db, workspace.id, req.params.id);
    if (!occurrence) throw new AppError('not_found', 'No such error occurrence in this workspace.');
    res.json(errorOccurrenceJson(occurrence));
  });

  router.get('/:groupId', async (req, res) => {
    const { workspace } = apiAuth(res);
    const group = await findErrorGroup(db, workspace.id, req.params.groupId);
    if (!group) throw new AppError('not_found', 'No such error group in this workspace.');
    const occurrences = await latestOccurrences(db, group);
    res.json({
      group: errorGroupJson(group),
      occurrences: occurrences.map(errorOccurrenceJson),
    });
  });

  return router;
}
