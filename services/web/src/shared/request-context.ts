import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@ferry/core';
import type { Db, Member, User, Workspace } from '@ferry/db';
import {
  findUser,
  findMembership,
  findUserAndMembership,
  type Membership,
  unreadState,
  type UnreadState,
} from '@ferry/workspace';
import { workspaceBase, type PageContext } from './layout.js';
import type { SafeHtml } from './html.js';

/** What a page handler can rely on after the middleware below ran. */
export interface Locals {
  user?: User;
  workspace?: Workspace;
  member?: Member;
  /** The sidebar's rooms and counts, for pages (see loadUnread). */
  unread?: UnreadState;
  /** Reads `unread` when a form post answers with a page after all (see loadUnread). */
  readUnread?: () => Promise<UnreadState>;
}

export function locals(res: Response): Locals {
  return res.locals as Locals;
}

/**
 * A workspace page's id, read from the path before the router matches WORKSPACE_BASE, so that the
 * user and their seat there are one read (see loadUser, loadWorkspace).
 */
const WORKSPACE_PATH = /^\/w\/([^/]+)\/[^/]+(?:\/|$)/;

/** The seat loadUser read with the user, for loadWorkspace; per request, never shared. */
const seatsRead = new WeakMap<
  Request,
  { userId: string; workspaceId: string; membership: Membership | undefined }
>();

/** Loads the signed-in user from the session on every request (a deleted user is signed out). */
export function loadUser({ db }: { db: Db }): RequestHandler {
  return async (req, res, next) => {
    const userId = req.session.userId;
    if (userId) {
      const workspaceId = WORKSPACE_PATH.exec(req.path)?.[1];
      let user: User | undefined;
      if (workspaceId) {
        const found = await findUserAndMembership(db, userId, workspaceId);
        user = found?.user;
        if (found) seatsRead.set(req, { userId, workspaceId, membership: found.membership });
      } else {
        user = await findUser(db, userId);
      }
      if (user) locals(res).user = user;
      else delete req.session.userId;
    }
    next();
  };
}

export function requireUser(req: Request, res: Response, next: NextFunction): void {
  if (locals(res).user) {
    next();
    return;
  }
  if (req.method === 'GET') res.redirect(`/login?next=${encodeURIComponent(req.originalUrl)}`);
  else next(new AppError('unauthorized', 'Sign in to continue.'));
}

/**
 * For /w/:workspaceId/:slug/...: the user must hold an active seat, checked against the database on
 * every request so a removed member loses access at once. Unknown and foreign workspaces are both
 * 404, so ids of other workspaces reveal nothing. A wrong slug redirects to the right one.
 */
export function loadWorkspace({ db }: { db: Db }): RequestHandler {
  return async (req, res, next) => {
    const user = locals(res).user;
    if (!user) {
      requireUser(req, res, next);
      return;
    }
    const { workspaceId, slug } = req.params as { workspaceId: string; slug: string };
    // Read with the user when the path named the same workspace (it does, unless encoded).
    const read = seatsRead.get(req);
    const membership =
      read && read.userId === user.id && read.workspaceId === workspaceId
        ? read.membership
        : await findMembership(db, user.id, workspaceId);
    if (!membership)
      throw new AppError('not_found', 'No such workspace, or you are not a member of it.');
    if (slug !== membership.workspace.slug && req.method === 'GET') {
      const rest = req.originalUrl.split('/').slice(4).join('/');
      res.redirect(`${workspaceBase(membership.workspace)}${rest ? `/${rest}` : ''}`);
      return;
    }
    locals(res).workspace = membership.workspace;
    locals(res).member = membership.member;
    next();
  };
}

/**
 * For workspace pages: the sidebar's rooms with their unread counts and the unread mentions, after
 * loadWorkspace. Read up front for a page view (GET, HEAD: routes adjust it before rendering, e.g.
 * a room marks itself read); for a form post only if it answers with a page (renderPage), since
 * nearly every post redirects (Post/Redirect/Get) and the read is most of a refused post's cost.
 * Never for JSON calls.
 */
export function loadUnread({ db }: { db: Db }): RequestHandler {
  return async (req, res, next) => {
    const member = locals(res).member;
    if (member && req.accepts(['html', 'json']) === 'html') {
      if (req.method === 'GET' || req.method === 'HEAD') {
        locals(res).unread = await unreadState(db, member);
      } else {
        locals(res).readUnread = () => unreadState(db, member);
      }
    }
    next();
  };
}

/** The workspace and seat set by loadWorkspace; throws if a route forgot to mount it. */
export function seat(res: Response): { workspace: Workspace; member: Member; user: User } {
  const { workspace, member, user } = locals(res);
  if (!workspace || !member || !user) throw new Error('loadWorkspace middleware missing');
  return { workspace, member, user };
}

export function pageContext(req: Request, res: Response): PageContext {
  const { user, workspace, member, unread } = locals(res);
  const flash = req.session?.flash;
  if (flash) delete req.session.flash;
  // A refused form's values are for the page its route took them on (kept-form.ts), never later.
  if (req.session?.keptForm) delete req.session.keptForm;
  return {
    csrfToken: req.csrfToken?.() ?? '',
    user: user ? { id: user.id, name: user.name, email: user.email } : undefined,
    workspace,
    role: member?.role,
    unread,
    flash,
  };
}

export function flash(req: Request, kind: 'ok' | 'error', text: string): void {
  req.session.flash = [...(req.session.flash ?? []), { kind, text }];
}

/**
 * For pages that can show a raw secret (a new token, a revealed key): never cached, so the Back
 * button cannot bring the value back from the browser cache.
 */
export function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
}

export function send(res: Response, page: SafeHtml, status = 200): void {
  res.status(status).type('html').send(page.value);
}

/**
 * Answers with a page: `view` (a feature's views) gets this request's page context (CSRF token, user,
 * seat, flash) and returns the whole document. The one path from a route to HTML.
 */
export async function renderPage(
  req: Request,
  res: Response,
  view: (ctx: PageContext) => SafeHtml,
  status = 200,
): Promise<void> {
  const pageLocals = locals(res);
  if (pageLocals.unread === undefined && pageLocals.readUnread) {
    pageLocals.unread = await pageLocals.readUnread();
  }
  send(res, view(pageContext(req, res)), status);
}
