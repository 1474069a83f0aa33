import express, { Router } from 'express';
import { mount, notFoundHandler, storableBody, type MountedTable } from '@ferry/http';
import { errorsApi } from './features/errors/api.js';
import { errorAlertsApi } from './features/errors/alerts-api.js';
import { eventTypesApi, eventWebhooksApi } from './features/event-webhooks/api.js';
import { eventWebhookRoutes } from './features/event-webhooks/routes.js';
import { apiDocsApi } from './features/api-docs/api.js';
import { roomsApi } from './features/rooms/api.js';
import { feedbackApi } from './features/feedback/api.js';
import type { WebDeps } from './deps.js';
import type { Realtime } from './shared/realtime.js';
import { agentRoutes } from './features/agents/routes.js';
import { authRoutes } from './features/auth/routes.js';
import { dashboardRoutes } from './features/dashboard/routes.js';
import { errorRoutes, errorSettingsRoutes } from './features/errors/routes.js';
import { errorAlertRoutes } from './features/errors/alerts-routes.js';
import { feedbackRoutes } from './features/feedback/routes.js';
import { groupLinkRoutes, ticketLinkRoutes } from './features/feedback/link-routes.js';
import { feedbackScreenshotRoutes } from './features/feedback/screenshot-routes.js';
import { githubFlowRoutes, githubSettingsRoutes } from './features/github/routes.js';
import { inviteRoutes } from './features/auth/invite-routes.js';
import { memberRoutes } from './features/members/routes.js';
import { mentionRoutes } from './features/mentions/routes.js';
import { opsRoutes } from './features/ops/routes.js';
import { outgoingHookRoutes } from './features/webhooks/outgoing-routes.js';
import { roomPeopleRoutes } from './features/rooms/people-routes.js';
import { roomRoutes } from './features/rooms/routes.js';
import { messageFileRoutes } from './features/rooms/file-routes.js';
import { tokenRoutes } from './features/tokens/routes.js';
import { webhookRoutes } from './features/webhooks/routes.js';
import { widgetSettingsRoutes } from './features/widget/routes.js';
import { workspaceRoutes } from './features/auth/workspace-routes.js';
import { loadUnread, loadUser, loadWorkspace } from './shared/request-context.js';
import { csrf } from './shared/session.js';

/** Where workspace pages live: every route below it needs a seat (loadWorkspace). */
export const WORKSPACE_BASE = '/w/:workspaceId/:slug';

/**
 * Every page route of web, as data, in matching order: `signedOut` tables need no seat, the
 * `workspace` ones are mounted under WORKSPACE_BASE behind loadWorkspace. Tests walk this list.
 */
export function pageTables(
  deps: WebDeps,
  realtime: Realtime,
): { open: MountedTable[]; workspace: MountedTable[] } {
  const under = (path: string) => `${WORKSPACE_BASE}${path}`;
  return {
    open: [
      { base: '/', table: authRoutes(deps) },
      { base: '/', table: workspaceRoutes(deps) },
      { base: '/invite', table: inviteRoutes(deps) },
      // Where GitHub sends the browser back (the App's Setup URL and Callback URL).
      { base: '/github', table: githubFlowRoutes(deps) },
      // A ticket's screenshot: checks the seat itself, so signed-out is a 404, not a redirect.
      { base: under('/feedback/:feedbackId/screenshot'), table: feedbackScreenshotRoutes(deps) },
      // A webhook message's file: checks the room itself, so signed-out is a 404, not a redirect.
      { base: '/files', table: messageFileRoutes(deps) },
    ],
    workspace: [
      { base: under('/members'), table: memberRoutes(deps) },
      { base: under('/mentions'), table: mentionRoutes(deps) },
      // Before '/rooms' (whose routes never match these deeper paths anyway); falls through to
      // the outgoing-hooks table for `.../settings/webhooks/outgoing...`.
      { base: under('/rooms/:roomId/settings/webhooks'), table: webhookRoutes(deps) },
      {
        base: under('/rooms/:roomId/settings/webhooks/outgoing'),
        table: outgoingHookRoutes(deps),
      },
      { base: under('/rooms/:roomId/people'), table: roomPeopleRoutes(deps) },
      { base: under('/rooms'), table: roomRoutes(deps, realtime) },
      { base: under('/settings/tokens'), table: tokenRoutes(deps) },
      { base: under('/feedback/:feedbackId/errors'), table: ticketLinkRoutes(deps) },
      { base: under('/feedback'), table: feedbackRoutes(deps) },
      { base: under('/agents'), table: agentRoutes(deps) },
      { base: under('/errors/:groupId/tickets'), table: groupLinkRoutes(deps) },
      { base: under('/errors'), table: errorRoutes(deps) },
      { base: under('/settings/errors'), table: errorSettingsRoutes(deps) },
      { base: under('/settings/error-alerts'), table: errorAlertRoutes(deps) },
      { base: under('/settings/event-webhooks'), table: eventWebhookRoutes(deps) },
      { base: under('/settings/widget'), table: widgetSettingsRoutes(deps) },
      { base: under('/settings/github'), table: githubSettingsRoutes(deps) },
      { base: under('/ops'), table: opsRoutes(deps) },
      { base: under('/'), table: dashboardRoutes(deps) },
    ],
  };
}

/** /api/v1 routes of web, as data (other services' /api/v1 routes are theirs). */
export function apiTables(deps: WebDeps): MountedTable[] {
  return [
    { base: '/api/v1', table: apiDocsApi(deps) },
    { base: '/api/v1/feedback', table: feedbackApi(deps) },
    { base: '/api/v1/errors', table: errorsApi(deps) },
    { base: '/api/v1/error-alerts', table: errorAlertsApi(deps) },
    { base: '/api/v1/event-types', table: eventTypesApi(deps) },
    { base: '/api/v1/event-webhooks', table: eventWebhooksApi(deps) },
    { base: '/api/v1/rooms', table: roomsApi(deps) },
  ];
}

/** Mounts a table at the part of its base below `prefix` (the router's own mount point). */
function mountUnder(router: Router, prefix: string, mounted: MountedTable): void {
  router.use(mounted.base.slice(prefix.length) || '/', mount(mounted));
}

/** Pages: signed-in, session-backed, CSRF-checked. Mounted after the session middleware. */
export function pageRoutes(deps: WebDeps, realtime: Realtime): Router {
  const tables = pageTables(deps, realtime);
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 200 }));
  router.use(express.json({ limit: '100kb' }));
  router.use(storableBody);
  // Every page form, mutating or not, carries the session's token: csrf-sync checks all but GET.
  router.use(csrf.csrfSynchronisedProtection);
  router.use(loadUser(deps));
  for (const mounted of tables.open) mountUnder(router, '', mounted);

  const workspace = Router({ mergeParams: true });
  workspace.use(loadWorkspace(deps));
  workspace.use(loadUnread(deps));
  for (const mounted of tables.workspace) mountUnder(workspace, WORKSPACE_BASE, mounted);
  router.use(WORKSPACE_BASE, workspace);
  return router;
}

/** REST API under /api/v1: bearer tokens, JSON only, no session, no CSRF. */
export function apiRoutes(deps: WebDeps): Router {
  const router = Router();
  router.use(express.json({ limit: '256kb' }));
  router.use(storableBody);
  for (const mounted of apiTables(deps)) mountUnder(router, '/api/v1', mounted);
  // Unknown API paths answer a JSON 404 here rather than falling into the pages (and their CSRF
  // check). In `pnpm start`, other services' /api/v1 routers are mounted before this one.
  router.use(notFoundHandler);
  return router;
}
