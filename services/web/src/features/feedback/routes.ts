import type { Request, Response } from 'express';
import { AppError, fieldErrors } from '@ferry/core';
import type { FeedbackStatus } from '@ferry/db';
import {
  dispatchIdentity,
  dispatchReady,
  findAuthorization,
  listRepos,
  requestDispatch,
} from '@ferry/github';
import { isId } from '@ferry/core';
import {
  assignableMembers,
  can,
  conversationMessages,
  countFeedbackByStatus,
  FEEDBACK_PAGE_SIZE,
  FEEDBACK_STATUSES,
  findFeedback,
  listDispatches,
  listFeedback,
  triageFeedback,
  triageSchema,
  workspaceMentionHandles,
  type FeedbackFilter,
  type Ticket,
  findErrorGroup,
  screenshotMeta,
  findEvidence,
  ticketErrorGroups,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { workspaceBase } from '../../shared/layout.js';
import { flash, renderPage, seat } from '../../shared/request-context.js';
import { keptText, redirectWithForm, takeForm } from '../../shared/kept-form.js';
import { inboxPage, type AssigneeChoice } from './inbox-views.js';
import { ticketPage, type TriagePanel } from './ticket-views.js';
import type { DispatchPanel } from './dispatch-views.js';
import { pageParam } from '../../shared/pager.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { capability } from '../../shared/access.js';
import { webhookKeyLinks } from '../webhooks/badges.js';
import { ticketLinkForm } from './link-routes.js';

/** Query values on a page are forgiving: junk falls back to the default instead of an error. */
function statusParam(value: unknown): FeedbackStatus | undefined {
  return FEEDBACK_STATUSES.find((s) => s === value);
}

/** `me`, `none` or a member id; anything else means "anyone". */
function assigneeParam(value: unknown): AssigneeChoice | undefined {
  if (value === 'me' || value === 'none') return value;
  return isId(value, 'member') ? value : undefined;
}

const SEARCH_MAX = 200;
const TICKET_CONVERSATION_LIMIT = 30;

function searchParam(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, SEARCH_MAX) : undefined;
}

/** The AppErrors a dispatch can end in, shown on the ticket page rather than an error page. */
const DISPATCH_REFUSALS = new Set([
  'not_found',
  'repo_not_ready',
  'no_dispatch_identity',
  'dispatch_in_flight',
]);

export function feedbackRoutes({ db, config, github }: WebDeps): RouteTable {
  const routes = routeTable();

  routes.get('/', capability('feedback.read'), async (req, res) => {
    const { workspace, member } = seat(res);
    const status = statusParam(req.query.status);
    const assignee = assigneeParam(req.query.assignee);
    const q = searchParam(req.query.q);
    const page = pageParam(req.query.page);
    const filter: Omit<FeedbackFilter, 'status'> = {
      assignee: assignee === 'me' ? member.id : assignee,
      q,
    };
    const filtered = filter.assignee !== undefined || q !== undefined;
    const [list, counts, members, unfiltered] = await Promise.all([
      listFeedback(db, workspace.id, { ...filter, status, page }),
      countFeedbackByStatus(db, workspace.id, filter),
      assignableMembers(db, workspace.id),
      // Whether the workspace has any ticket at all: the first-run help is only for an empty inbox.
      filtered ? countFeedbackByStatus(db, workspace.id) : undefined,
    ]);
    const sum = (c: Record<FeedbackStatus, number>) => c.new + c.triaged + c.closed;
    const matching = status ? counts[status] : sum(counts);
    await renderPage(req, res, (ctx) =>
      inboxPage(ctx, {
        workspace,
        publicUrl: config.PUBLIC_URL,
        canManageTokens: can(member.role, 'tokens.manage'),
        hasTickets: sum(unfiltered ?? counts) > 0,
        filter: { status, assignee, q },
        members,
        counts,
        page,
        pages: Math.max(1, Math.ceil(matching / FEEDBACK_PAGE_SIZE)),
        items: list.items,
      }),
    );
  });

  /** The "Dispatch to GitHub" panel: ready repositories, whose authorization it runs as. */
  async function dispatchPanel(
    res: Response,
    extra: { selected?: string; error?: string } = {},
  ): Promise<DispatchPanel | undefined> {
    const { workspace, member } = seat(res);
    if (!can(member.role, 'feedback.dispatch')) return undefined;
    const [repos, identityId, own] = await Promise.all([
      listRepos(db, workspace.id),
      dispatchIdentity(db, workspace.id),
      findAuthorization(db, member.id),
    ]);
    const identity = identityId ? await findAuthorization(db, identityId) : undefined;
    return {
      configured: github !== null,
      canManage: can(member.role, 'github.manage'),
      repos,
      readyRepos: repos.filter(dispatchReady),
      runAs: identity
        ? { kind: 'identity', login: identity.github_login, self: identityId === member.id }
        : own
          ? { kind: 'self', login: own.github_login }
          : { kind: 'nobody' },
      ...extra,
    };
  }

  /** The triage form: status and assignee, for members who may triage. */
  async function triagePanel(
    res: Response,
    feedback: Ticket,
    form: Partial<Pick<TriagePanel, 'values' | 'errors'>> = {},
  ): Promise<TriagePanel | undefined> {
    const { workspace, member } = seat(res);
    if (!can(member.role, 'feedback.triage')) return undefined;
    return {
      members: await assignableMembers(db, workspace.id),
      values: form.values ?? {
        status: feedback.status,
        assignee_id: feedback.assignee_member_id ?? '',
      },
      errors: form.errors ?? {},
    };
  }

  async function showTicket(
    req: Request,
    res: Response,
    feedback: Ticket,
    extra: { selected?: string; error?: string } = {},
    status = 200,
    triageForm: Partial<Pick<TriagePanel, 'values' | 'errors'>> = {},
  ): Promise<void> {
    const { workspace, member } = seat(res);
    const [conversation, handles, dispatches, dispatch, triage, errorGroup, screenshot, evidence] =
      await Promise.all([
        // The latest few, shown whole: the rest (and the reply box) are in the room.
        conversationMessages(db, feedback, TICKET_CONVERSATION_LIMIT),
        workspaceMentionHandles(db, workspace.id),
        listDispatches(db, feedback),
        dispatchPanel(res, extra),
        triagePanel(res, feedback, triageForm),
        feedback.error_group_id
          ? findErrorGroup(db, workspace.id, feedback.error_group_id)
          : Promise.resolve(undefined),
        screenshotMeta(db, workspace.id, feedback.id),
        findEvidence(db, workspace.id, feedback.id),
      ]);
    const linkForm = takeForm(req, ticketLinkForm(feedback.id));
    const linkedErrors = can(member.role, 'errors.read')
      ? {
          groups: await ticketErrorGroups(db, workspace.id, feedback.id),
          form: can(member.role, 'feedback.triage')
            ? { value: keptText(linkForm, 'group') ?? '', error: linkForm?.errors.group }
            : undefined,
        }
      : undefined;
    const keyLinks = await webhookKeyLinks(db, {
      workspace,
      userId: seat(res).user.id,
      canManageWebhooks: can(member.role, 'webhooks.manage'),
      messages: conversation.messages,
    });
    await renderPage(
      req,
      res,
      (ctx) =>
        ticketPage(ctx, {
          workspace,
          feedback,
          conversation,
          handles,
          webhookKeyLinks: keyLinks,
          dispatches,
          dispatch,
          triage,
          errorGroup,
          screenshot,
          evidence,
          linkedErrors,
        }),
      status,
    );
  }

  /** The refusal in this page's words: the API's messages point at API calls to make. */
  async function refusalText(error: AppError, workspaceId: string, repoId: string) {
    if (error.code === 'not_found') {
      return 'That repository is not in this workspace any more: pick another one.';
    }
    if (error.code === 'dispatch_in_flight') {
      const repo = (await listRepos(db, workspaceId)).find((r) => r.id === repoId);
      return `A dispatch of this ticket to ${repo?.full_name ?? 'that repository'} is already running: its progress shows below.`;
    }
    return error.message;
  }

  async function ticketOf(req: Request, res: Response): Promise<Ticket> {
    const feedback = await findFeedback(db, seat(res).workspace.id, String(req.params.feedbackId));
    if (!feedback) throw new AppError('not_found', 'No such feedback ticket in this workspace.');
    return feedback;
  }

  // The ticket page's two forms, as kept-form.ts names them per ticket.
  const dispatchForm = (feedbackId: string) => `feedback.dispatch:${feedbackId}`;
  const triageForm = (feedbackId: string) => `feedback.triage:${feedbackId}`;

  routes.get('/:feedbackId', capability('feedback.read'), async (req, res) => {
    const feedback = await ticketOf(req, res);
    // A refused dispatch or triage comes back here (303) with what was chosen and why.
    const dispatch = takeForm(req, dispatchForm(feedback.id));
    const triage = takeForm(req, triageForm(feedback.id));
    await showTicket(
      req,
      res,
      feedback,
      dispatch ? { selected: keptText(dispatch, 'repo'), error: dispatch.errors.repo } : {},
      200,
      triage
        ? {
            values: {
              status: keptText(triage, 'status') ?? '',
              assignee_id: keptText(triage, 'assignee_id') ?? '',
            },
            errors: triage.errors,
          }
        : {},
    );
  });

  // The ticket page's "Dispatch to GitHub": runs as the dispatch identity, or as the clicker.
  routes.post('/:feedbackId/dispatch', capability('feedback.dispatch'), async (req, res) => {
    const { workspace, member } = seat(res);
    const feedback = await ticketOf(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const repoId = typeof body.repo === 'string' ? body.repo.trim() : '';
    const ticketPath = `${workspaceBase(workspace)}/feedback/${feedback.id}`;
    try {
      const created = await requestDispatch(db, {
        workspaceId: workspace.id,
        feedbackId: feedback.id,
        repoId,
        starter: { via: 'member', memberId: member.id },
      });
      const repos = await listRepos(db, workspace.id);
      const name = repos.find((r) => r.id === created.repo_id)?.full_name ?? 'GitHub';
      flash(req, 'ok', `Dispatched to ${name}. Its progress shows below.`);
      res.redirect(303, ticketPath);
    } catch (error) {
      if (error instanceof AppError && DISPATCH_REFUSALS.has(error.code)) {
        const message = await refusalText(error, workspace.id, repoId);
        redirectWithForm(req, res, ticketPath, dispatchForm(feedback.id), {
          values: { repo: repoId },
          errors: { repo: message },
        });
        return;
      }
      throw error;
    }
  });

  // The ticket page's triage form: status and assignee; each change becomes a conversation notice.
  routes.post('/:feedbackId/triage', capability('feedback.triage'), async (req, res) => {
    const { workspace, user, member } = seat(res);
    const feedback = await ticketOf(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values = {
      status: typeof body.status === 'string' ? body.status : '',
      assignee_id: typeof body.assignee_id === 'string' ? body.assignee_id : '',
    };
    const parsed = triageSchema.safeParse(values);
    const ticketPath = `${workspaceBase(workspace)}/feedback/${feedback.id}`;
    try {
      if (!parsed.success) {
        throw new AppError('validation_failed', 'Check the triage form.', {
          fields: fieldErrors(parsed.error),
        });
      }
      await triageFeedback(db, {
        workspaceId: workspace.id,
        feedbackId: feedback.id,
        actor: { kind: 'member', name: user.name, memberId: member.id },
        change: parsed.data,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'validation_failed') {
        const errors = error.options.fields ?? { _: error.message };
        redirectWithForm(req, res, ticketPath, triageForm(feedback.id), { values, errors });
        return;
      }
      throw error;
    }
    flash(req, 'ok', 'Triage saved.');
    res.redirect(303, ticketPath);
  });

  return routes;
}
