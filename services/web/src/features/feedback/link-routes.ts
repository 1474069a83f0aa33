import type { Request, Response } from 'express';
import { AppError } from '@ferry/core';
import { routeTable, type RouteTable } from '@ferry/http';
import { idIn, linkTicketToGroup, unlinkTicketFromGroup, type LinkInput } from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { capability } from '../../shared/access.js';
import { workspaceBase } from '../../shared/layout.js';
import { flash, seat } from '../../shared/request-context.js';
import { postedText, redirectWithForm } from '../../shared/kept-form.js';

/**
 * Linking tickets and error groups by hand (issue 45), from either page: the ticket page's
 * "Link an error group" and the group page's "Link a feedback ticket", and Unlink on each row of
 * both. One domain function each way decides; these only read the form and say what happened.
 * Both need `feedback.triage`: a link is part of the ticket's triage.
 */

const triage = capability('feedback.triage');

/** The kept-form names of the two link forms, per page. */
export const ticketLinkForm = (feedbackId: string) => `feedback.link:${feedbackId}`;
export const groupLinkForm = (groupId: string) => `errors.link:${groupId}`;

type Side = {
  /** The page the form is on, and where every answer leads. */
  page: (req: Request, res: Response) => string;
  form: (req: Request) => string;
  /** The posted field, what it must hold, and what to say when it does not. */
  field: 'group' | 'ticket';
  kind: 'errorGroup' | 'feedback';
  unreadable: string;
  /** The ids of the link, from the page's own id and the other side's. */
  ids: (req: Request, other: string) => { feedbackId: string; groupId: string };
};

function linkHandlers(db: WebDeps['db'], side: Side) {
  const input = (req: Request, res: Response, other: string): LinkInput => {
    const { workspace, member, user } = seat(res);
    return {
      workspaceId: workspace.id,
      ...side.ids(req, other),
      actor: { kind: 'member', memberId: member.id, name: user.name },
    };
  };
  /** A 404 of the other side (a typo, another workspace's id) is the form's error. */
  const otherMissing = (error: unknown) =>
    error instanceof AppError && error.code === 'not_found' && error.options.fields?.[side.field];

  const link = async (req: Request, res: Response) => {
    const page = side.page(req, res);
    const typed = postedText(req.body, side.field).trim();
    const other = idIn(typed, side.kind);
    const refuse = (message: string) =>
      redirectWithForm(req, res, page, side.form(req), {
        values: { [side.field]: typed.slice(0, 500) },
        errors: { [side.field]: message },
      });
    if (!other) return refuse(side.unreadable);
    try {
      const linked = await linkTicketToGroup(db, input(req, res, other));
      flash(req, 'ok', linked.changed ? 'Linked.' : 'They were already linked.');
    } catch (error) {
      if (!otherMissing(error)) throw error;
      return refuse((error as AppError).options.fields![side.field]!);
    }
    res.redirect(303, page);
  };

  const unlink = async (req: Request, res: Response) => {
    const page = side.page(req, res);
    const other = String(req.params.otherId);
    try {
      const unlinked = await unlinkTicketFromGroup(db, input(req, res, other));
      flash(req, 'ok', unlinked ? 'Unlinked.' : 'They were not linked.');
    } catch (error) {
      if (!otherMissing(error)) throw error;
      flash(req, 'error', (error as AppError).options.fields![side.field]!);
    }
    res.redirect(303, page);
  };
  return { link, unlink };
}

/** Mounted at `/w/…/feedback/:feedbackId/errors`: the ticket page's side. */
export function ticketLinkRoutes({ db }: WebDeps): RouteTable {
  const feedbackId = (req: Request) => String(req.params.feedbackId);
  const handlers = linkHandlers(db, {
    page: (req, res) =>
      `${workspaceBase(seat(res).workspace)}/feedback/${encodeURIComponent(feedbackId(req))}`,
    form: (req) => ticketLinkForm(feedbackId(req)),
    field: 'group',
    kind: 'errorGroup',
    unreadable: 'Paste the error group’s id (egr_…) or the link to its page.',
    ids: (req, other) => ({ feedbackId: feedbackId(req), groupId: other }),
  });
  const routes = routeTable();
  routes.post('/', triage, handlers.link);
  routes.post('/:otherId/unlink', triage, handlers.unlink);
  return routes;
}

/** Mounted at `/w/…/errors/:groupId/tickets`: the group page's side. */
export function groupLinkRoutes({ db }: WebDeps): RouteTable {
  const groupId = (req: Request) => String(req.params.groupId);
  const handlers = linkHandlers(db, {
    page: (req, res) =>
      `${workspaceBase(seat(res).workspace)}/errors/${encodeURIComponent(groupId(req))}`,
    form: (req) => groupLinkForm(groupId(req)),
    field: 'ticket',
    kind: 'feedback',
    unreadable: 'Paste the ticket’s id (fbk_…) or the link to its page.',
    ids: (req, other) => ({ feedbackId: other, groupId: groupId(req) }),
  });
  const routes = routeTable();
  routes.post('/', triage, handlers.link);
  routes.post('/:otherId/unlink', triage, handlers.unlink);
  return routes;
}
