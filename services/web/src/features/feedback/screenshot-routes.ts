import type { RequestHandler } from 'express';
import { AppError, isId } from '@ferry/core';
import { routeTable, type Access, type RouteTable } from '@ferry/http';
import { findMembership, findScreenshot } from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { requireCapability } from '../../shared/access.js';
import { locals } from '../../shared/request-context.js';

/**
 * A ticket's screenshot, as an image, for members who can read the ticket (`feedback.read`).
 * Mounted among the open tables (before loadWorkspace) so that a signed-out request, another
 * workspace's member and an unknown ticket all get the same 404: the URL says nothing, and it
 * never redirects a signed-out browser to a login that would reveal the image exists.
 */

const NOT_FOUND = 'There is nothing at this address.';

/** Loads the seat like loadWorkspace does, but answers 404 (never a redirect) without one. */
function seatOrNotFound({ db }: Pick<WebDeps, 'db'>): RequestHandler {
  return async (req, res, next) => {
    const user = locals(res).user;
    if (!user) throw new AppError('not_found', NOT_FOUND);
    const membership = await findMembership(db, user.id, String(req.params.workspaceId));
    if (!membership) throw new AppError('not_found', NOT_FOUND);
    locals(res).workspace = membership.workspace;
    locals(res).member = membership.member;
    next();
  };
}

export function screenshotAccess(deps: Pick<WebDeps, 'db'>): Access {
  return {
    kind: 'capability',
    rule: 'feedback.read',
    enforce: [seatOrNotFound(deps), requireCapability('feedback.read')],
  };
}

export function feedbackScreenshotRoutes(deps: WebDeps): RouteTable {
  const routes = routeTable();
  routes.get('/', screenshotAccess(deps), async (req, res) => {
    const workspace = locals(res).workspace;
    const feedbackId = String((req.params as Record<string, string>).feedbackId);
    const shot =
      workspace && isId(feedbackId, 'feedback')
        ? await findScreenshot(deps.db, workspace.id, feedbackId)
        : undefined;
    if (!shot) throw new AppError('not_found', NOT_FOUND);
    const extension = shot.content_type.slice('image/'.length);
    res.set({
      // The type its magic bytes proved when it was stored; never sniffed by the browser.
      'Content-Type': shot.content_type,
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': `inline; filename="screenshot-${shot.feedback_id}.${extension}"`,
      // A member's own browser only: no shared cache keeps a copy past a removal.
      'Cache-Control': 'private, no-store',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Content-Length': String(shot.bytes.length),
    });
    res.end(shot.bytes);
  });
  return routes;
}
