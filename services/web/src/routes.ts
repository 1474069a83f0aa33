import express, { Router } from 'express';
import { notFoundHandler, storableBody } from '@ferry/http';
import { errorsApi } from './api/errors.js';
import { feedbackApi } from './api/feedback.js';
import type { WebDeps } from './deps.js';
import type { Realtime } from './realtime.js';
import { agentRoutes } from './pages/agents.js';
import { authRoutes } from './pages/auth.js';
import { dashboardRoutes } from './pages/dashboard.js';
import { errorRoutes, errorSettingsRoutes } from './pages/errors.js';
import { feedbackRoutes } from './pages/feedback.js';
import { githubFlowRoutes, githubSettingsRoutes } from './pages/github.js';
import { inviteRoutes } from './pages/invites.js';
import { memberRoutes } from './pages/members.js';
import { mentionRoutes } from './pages/mentions.js';
import { opsRoutes } from './pages/ops.js';
import { outgoingHookRoutes } from './pages/outgoing-hooks.js';
import { roomPeopleRoutes } from './pages/room-people.js';
import { roomRoutes } from './pages/rooms.js';
import { tokenRoutes } from './pages/tokens.js';
import { webhookRoutes } from './pages/webhooks.js';
import { widgetSettingsRoutes } from './pages/widget.js';
import { workspaceRoutes } from './pages/workspaces.js';
import { loadUnread, loadUser, loadWorkspace } from './request-context.js';
import { csrf } from './session.js';

/** Pages: signed-in, session-backed, CSRF-checked. Mounted after the session middleware. */
export function pageRoutes(deps: WebDeps, realtime: Realtime): Router {
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 200 }));
  router.use(express.json({ limit: '100kb' }));
  router.use(storableBody);
  router.use(csrf.csrfSynchronisedProtection);
  router.use(loadUser(deps));
  router.use(authRoutes(deps));
  router.use(workspaceRoutes(deps));
  router.use('/invite', inviteRoutes(deps));
  // Where GitHub sends the browser back (the App's Setup URL and Callback URL).
  router.use('/github', githubFlowRoutes(deps));

  const workspace = Router({ mergeParams: true });
  workspace.use(loadWorkspace(deps));
  workspace.use(loadUnread(deps));
  workspace.use('/members', memberRoutes(deps));
  workspace.use('/mentions', mentionRoutes(deps));
  // Before '/rooms' (whose routes never match these deeper paths anyway); falls through to the
  // outgoing-hooks router for `.../settings/webhooks/outgoing...`.
  workspace.use('/rooms/:roomId/settings/webhooks', webhookRoutes(deps));
  workspace.use('/rooms/:roomId/settings/webhooks/outgoing', outgoingHookRoutes(deps));
  workspace.use('/rooms/:roomId/people', roomPeopleRoutes(deps));
  workspace.use('/rooms', roomRoutes(deps, realtime));
  workspace.use('/settings/tokens', tokenRoutes(deps));
  workspace.use('/feedback', feedbackRoutes(deps));
  workspace.use('/agents', agentRoutes(deps));
  workspace.use('/errors', errorRoutes(deps));
  workspace.use('/settings/errors', errorSettingsRoutes(deps));
  workspace.use('/settings/widget', widgetSettingsRoutes(deps));
  workspace.use('/settings/github', githubSettingsRoutes(deps));
  workspace.use('/ops', opsRoutes(deps));
  workspace.use('/', dashboardRoutes(deps));
  router.use('/w/:workspaceId/:slug', workspace);
  return router;
}

/** REST API under /api/v1: bearer tokens, JSON only, no session, no CSRF. */
export function apiRoutes(deps: WebDeps): Router {
  const router = Router();
  router.use(express.json({ limit: '256kb' }));
  router.use(storableBody);
  router.use('/feedback', feedbackApi(deps));
  router.use('/errors', errorsApi(deps));
  // Unknown API paths answer a JSON 404 here rather than falling into the pages (and their CSRF
  // check). In `pnpm start`, other services' /api/v1 routers are mounted before this one.
  router.use(notFoundHandler);
  return router;
}
