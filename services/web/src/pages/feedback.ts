import { Router } from 'express';
import { AppError } from '@ferry/core';
import type { FeedbackStatus } from '@ferry/db';
import {
  can,
  conversationMessages,
  countFeedbackByStatus,
  FEEDBACK_PAGE_SIZE,
  findFeedback,
  listDispatches,
  listFeedback,
  workspaceMentionHandles,
} from '@ferry/workspace';
import type { WebDeps } from '../deps.js';
import { requireCapability, renderPage, seat } from '../request-context.js';
import { inboxPage, ticketPage } from '../views/feedback.js';
import { pageParam } from '../views/pager.js';

const STATUSES: readonly FeedbackStatus[] = ['new', 'triaged'];

/** Query values on a page are forgiving: junk falls back to the default instead of an error. */
function statusParam(value: unknown): FeedbackStatus | undefined {
  return STATUSES.find((s) => s === value);
}

export function feedbackRoutes({ db, config }: WebDeps): Router {
  const router = Router({ mergeParams: true });
  router.use(requireCapability('feedback.read'));

  router.get('/', async (req, res) => {
    const { workspace, member } = seat(res);
    const status = statusParam(req.query.status);
    const page = pageParam(req.query.page);
    const [list, counts] = await Promise.all([
      listFeedback(db, workspace.id, { page, status }),
      countFeedbackByStatus(db, workspace.id),
    ]);
    const matching = status ? counts[status] : counts.new + counts.triaged;
    renderPage(req, res, (ctx) =>
      inboxPage(ctx, {
        workspace,
        publicUrl: config.PUBLIC_URL,
        canManageTokens: can(member.role, 'tokens.manage'),
        status,
        counts,
        page,
        pages: Math.max(1, Math.ceil(matching / FEEDBACK_PAGE_SIZE)),
        items: list.items,
      }),
    );
  });

  router.get('/:feedbackId', async (req, res) => {
    const { workspace, member } = seat(res);
    const feedback = await findFeedback(db, workspace.id, req.params.feedbackId);
    if (!feedback) throw new AppError('not_found', 'No such feedback ticket in this workspace.');
    const [conversation, handles, dispatches] = await Promise.all([
      conversationMessages(db, feedback),
      workspaceMentionHandles(db, workspace.id),
      listDispatches(db, feedback),
    ]);
    renderPage(req, res, (ctx) =>
      ticketPage(ctx, {
        workspace,
        feedback,
        conversation,
        handles,
        canManageWebhooks: can(member.role, 'webhooks.manage'),
        dispatches,
      }),
    );
  });

  return router;
}
