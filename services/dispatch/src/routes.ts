import type { Router } from 'express';
import express from 'express';
import {
  access,
  inputOf,
  mount,
  requireJsonBody,
  routeTable,
  storableBody,
  type MountedTable,
} from '@ferry/http';
import {
  dispatchRequestSchema,
  listRepos,
  repoJson,
  repoJsonSchema,
  requestDispatch,
} from '@ferry/github';
import { apiAuth, dispatchJsonSchema, requireToken } from '@ferry/workspace';
import { z } from 'zod';
import type { DispatchDeps } from './deps.js';

/**
 * The dispatch service's part of /api/v1 (DESIGN.md's path table): the repositories a dispatch
 * can target, and starting a dispatch. A token stands for a workspace, never a person, so API
 * dispatches run as the workspace's dispatch identity and are refused without one.
 */
export function dispatchTable(deps: DispatchDeps): MountedTable {
  const routes = routeTable();
  // Parsers on the route, not the router: in `pnpm start` this router sits in front of web's
  // /api/v1, whose requests must reach it unparsed (web allows larger bodies).
  const jsonBody = [express.json({ limit: '16kb' }), storableBody, requireJsonBody];

  routes.get(
    '/repos',
    {
      access: access.scope('tenant:read', requireToken(deps, 'tenant:read')),
      doc: {
        summary: 'List repositories',
        description:
          'The GitHub repositories the workspace’s installation reaches, each with `dispatch_ready`: only a ready one (linked and enabled by an admin) can be dispatched to.',
        tag: 'Dispatch',
        security: 'bearer',
        responses: {
          200: {
            description: 'Every repository.',
            schema: z.object({ repos: z.array(repoJsonSchema) }),
          },
        },
      },
    },
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      const repos = await listRepos(deps.db, workspace.id);
      res.json({ repos: repos.map(repoJson) });
    },
  );

  routes.post(
    '/feedback/:feedbackId/dispatch',
    {
      access: access.scope('tenant:write', requireToken(deps, 'tenant:write')),
      before: jsonBody,
      doc: {
        summary: 'Dispatch a ticket to a coding agent',
        description:
          'Opens an issue with the ticket’s context in the repository and starts a coding-agent task asking for a pull request, as the workspace’s dispatch identity. Refused without a dispatch identity (`no_dispatch_identity`), for a repository not ready (`repo_not_ready`), and while a dispatch of the ticket to the same repository is in flight (`dispatch_in_flight`). Poll the ticket’s `dispatches` for progress.',
        tag: 'Dispatch',
        security: 'bearer',
        params: z.object({
          feedbackId: z.string().meta({ example: 'fbk_01m95vcs448p8d8nkpkmbpan9e' }),
        }),
        body: dispatchRequestSchema,
        bodyName: 'dispatch',
        responses: {
          202: {
            description: 'Started: the dispatch, `queued`.',
            schema: dispatchJsonSchema,
            headers: { Location: 'The ticket to poll: `/api/v1/feedback/<id>`.' },
          },
        },
      },
    },
    async (req, res) => {
      const { workspace, token } = apiAuth(res);
      const { feedbackId } = req.params;
      const input = inputOf(res.locals, 'body', dispatchRequestSchema);
      const dispatch = await requestDispatch(deps.db, {
        workspaceId: workspace.id,
        feedbackId,
        repoId: input.repo,
        starter: { via: 'api', tokenId: token.id },
      });
      res.status(202).location(`/api/v1/feedback/${feedbackId}`).json(dispatch);
    },
  );

  return { base: '/api/v1', table: routes };
}

/** Mounted at /api/v1. */
export function dispatchRoutes(deps: DispatchDeps): Router {
  return mount(dispatchTable(deps));
}
