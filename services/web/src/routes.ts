import express, { Router } from 'express';
import type { WebDeps } from './deps.js';
import { authRoutes } from './pages/auth.js';
import { dashboardRoutes } from './pages/dashboard.js';
import { memberRoutes } from './pages/members.js';
import { workspaceRoutes } from './pages/workspaces.js';
import { loadUser, loadWorkspace } from './request-context.js';
import { csrf } from './session.js';

/** Pages: signed-in, session-backed, CSRF-checked. Mounted after the session middleware. */
export function pageRoutes(deps: WebDeps): Router {
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 200 }));
  router.use(express.json({ limit: '100kb' }));
  router.use(csrf.csrfSynchronisedProtection);
  router.use(loadUser(deps));
  router.use(authRoutes(deps));
  router.use(workspaceRoutes(deps));

  const workspace = Router({ mergeParams: true });
  workspace.use(loadWorkspace(deps));
  workspace.use('/members', memberRoutes(deps));
  workspace.use('/', dashboardRoutes(deps));
  router.use('/w/:workspaceId/:slug', workspace);
  return router;
}

/** REST API under /api/v1: bearer tokens, JSON only, no session, no CSRF. */
export function apiRoutes(_deps: WebDeps): Router {
  const router = Router();
  router.use(express.json({ limit: '256kb' }));
  return router;
}
