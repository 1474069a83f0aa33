import type { Request } from 'express';
import { z } from 'zod';
import { AppError, type Logger } from '@ferry/core';
import type { Db, ErrorBulkAction } from '@ferry/db';
import type { RouteTable } from '@ferry/http';
import {
  ERROR_BULK_ACTIONS,
  findErrorBulkAction,
  runSmallErrorBulkAction,
  startErrorBulkAction,
  type BulkSelection,
} from '@ferry/workspace';
import { capability } from '../../shared/access.js';
import { withQuery } from '../../shared/format.js';
import { workspaceBase } from '../../shared/layout.js';
import { flash, renderPage, seat } from '../../shared/request-context.js';
import { bulkActionPage, bulkDoneText, bulkProgressJson } from './bulk-views.js';
import { DEFAULT_ERROR_SEARCH } from './list-views.js';

/** A form field that may come once, many times (checkboxes) or not at all. */
const many = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));
const one = z
  .union([z.string(), z.array(z.string()).transform((values) => values[0] ?? '')])
  .optional();

/** The list's bulk form: which button, which rows (or all the search matches), for whom. */
const bulkForm = z.object({
  action: one,
  ids: many,
  all: one,
  q: one,
  page: one,
  assignee_id: one,
});

/** Back to the list the form was on: its search and page. */
function listHref(base: string, q: string, page: string | undefined): string {
  return withQuery(`${base}/errors`, {
    q: q === DEFAULT_ERROR_SEARCH ? undefined : q || ' ',
    page: page && /^\d{1,5}$/.test(page) && page !== '1' ? page : undefined,
  });
}

/**
 * The Errors list's bulk actions (issue 43): POST /bulk starts one over the checked rows or every
 * group the search matches; a small one is done before the answer (a flash says what changed), a
 * large one opens its progress page, GET /bulk/:actionId, which follows it through
 * GET /bulk/:actionId/progress. Who may do what is startErrorBulkAction's (a guest never).
 */
export function bulkRoutes(routes: RouteTable, db: Db, logger: Logger): void {
  routes.post('/bulk', capability('errors.triage'), async (req, res) => {
    const { workspace, member, user } = seat(res);
    const base = workspaceBase(workspace);
    const form = bulkForm.parse(req.body ?? {});
    const q = (form.q ?? DEFAULT_ERROR_SEARCH).trim();
    const back = listHref(base, q, form.page);
    const action = ERROR_BULK_ACTIONS.find((kind) => kind === form.action);
    if (!action) {
      flash(req, 'error', 'Choose Resolve, Ignore, Reopen, Assign or Merge.');
      res.redirect(303, back);
      return;
    }
    const selection: BulkSelection =
      form.all === '1' ? { query: q, viewerMemberId: member.id } : { ids: form.ids };
    if ('ids' in selection && selection.ids.length === 0) {
      flash(req, 'error', 'Select the groups to act on, or every group the search matches.');
      res.redirect(303, back);
      return;
    }
    let started: ErrorBulkAction;
    try {
      started = await startErrorBulkAction(db, {
        workspaceId: workspace.id,
        actor: { kind: 'member', memberId: member.id, role: member.role, name: user.name },
        action,
        assigneeId: action === 'assign' ? form.assignee_id?.trim() || null : undefined,
        selection,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      flash(req, 'error', firstField(error) ?? error.message);
      res.redirect(303, back);
      return;
    }
    const done = await runSmallErrorBulkAction(db, logger, started);
    if (done.status === 'done') {
      flash(req, 'ok', bulkDoneText(done));
      res.redirect(303, back);
      return;
    }
    res.redirect(303, withQuery(`${base}/errors/bulk/${done.id}`, { back }));
  });

  routes.get('/bulk/:actionId', capability('errors.read'), async (req, res) => {
    const { workspace } = seat(res);
    const action = await findErrorBulkAction(db, workspace.id, String(req.params.actionId));
    if (!action) throw new AppError('not_found', 'No such bulk action in this workspace.');
    await renderPage(req, res, (ctx) =>
      bulkActionPage(ctx, { workspace, action, back: backParam(req, workspaceBase(workspace)) }),
    );
  });

  routes.get('/bulk/:actionId/progress', capability('errors.read'), async (req, res) => {
    const { workspace } = seat(res);
    const action = await findErrorBulkAction(db, workspace.id, String(req.params.actionId));
    if (!action) throw new AppError('not_found', 'No such bulk action in this workspace.');
    res.set('cache-control', 'no-store').json(bulkProgressJson(action));
  });
}

/** The list to go back to: only a path of this workspace's Errors list, never another site. */
function backParam(req: Request, base: string): string {
  const back = typeof req.query.back === 'string' ? req.query.back : '';
  return back.startsWith(`${base}/errors`) && !back.startsWith('//') ? back : `${base}/errors`;
}

function firstField(error: AppError): string | undefined {
  const fields = error.options.fields ?? {};
  return Object.values(fields)[0];
}
