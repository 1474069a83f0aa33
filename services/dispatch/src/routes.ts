import express, { Router } from 'express';
import { parseInput, requireJsonBody, storableBody } from '@ferry/http';
import { dispatchRequestSchema, listRepos, repoJson, requestDispatch } from '@ferry/github';
import { apiAuth, requireToken } from '@ferry/workspace';
import type { DispatchDeps } from './deps.js';

/**
 * The dispatch service's part of /api/v1 (DESIGN.md's path table): the repositories a dispatch
 * can target, and starting a dispatch. A token stands for a workspace, never a person, so API
 * dispatches run as the workspace's dispatch identity and are refused without one.
 */
export function dispatchRoutes(deps: DispatchDeps): Router {
  const router = Router();
  // Parsers on the route, not the router: in `pnpm start` this router sits in front of web's
  // /api/v1, whose requests must reach it unparsed (web allows larger bodies).
  const jsonBody = [express.json({ limit: '16kb' }), storableBody, requireJsonBody];

  router.get('/repos', requireToken(deps, 'tenant:read'), async (_req, res) => {
    const { workspace } = apiAuth(res);
    const repos = await listRepos(deps.db, workspace.id);
    res.json({ repos: repos.map(repoJson) });
  });

  router.post(
    '/feedback/:feedbackId/dispatch',
    requireToken(deps, 'tenant:write'),
    ...jsonBody,
    async (req, res) => {
      const { workspace, token } = apiAuth(res);
      const feedbackId = String(req.params.feedbackId);
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

  return router;
}
