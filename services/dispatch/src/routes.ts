import type { Router } from 'express';
import express from 'express';
import {
  access,
  mount,
  parseInput,
  requireJsonBody,
  routeTable,
  storableBody,
  type MountedTable,
} from '@ferry/http';
import { dispatchRequestSchema, listRepos, repoJson, requestDispatch } from '@ferry/github';
import { apiAuth, requireToken } from '@ferry/workspace';
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
    access.scope('tenant:read', requireToken(deps, 'tenant:read')),
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      const repos = await listRepos(deps.db, workspace.id);
      res.json({ repos: repos.map(repoJson) });
    },
  );

  routes.post(
    '/feedback/:feedbackId/dispatch',
    { access: access.scope('tenant:write', requireToken(deps, 'tenant:write')), before: jsonBody },
    async (req, res) => {
      const { workspace, token } = apiAuth(res);
      const { feedbackId } = req.params;
      const input = parseInput(dispatchRequestSchema, req.body, 'dispatch');
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
