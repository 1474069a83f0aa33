import type { Request, Response } from 'express';
import { AppError } from '@ferry/core';
import { ERROR_SOURCES, ERROR_STATUSES, type ErrorStatus } from '@ferry/db';
import {
  assignErrorGroup,
  assignableTo,
  assigneeNames,
  can,
  errorEnvironments,
  findErrorGroup,
  countErrorGroups,
  isErrorSource,
  isErrorStatus,
  listErrorGroups,
  occurrenceHours,
  occurrencePage,
  occurrenceSparklines,
  parseSearch,
  searchValue,
  withKeyReplaced,
  tagBreakdown,
  groupLatestFacts,
  retainedOccurrences,
  setErrorGroupStatus,
  fileTicketForErrorGroup,
  listDispatches,
  ticketForErrorGroup,
  withMappedDetail,
  saveScrubbingSettings,
  scrubbingSettingsOf,
  SCRUB_RULES_TTL_MS,
  listReleases,
  resolveInNextRelease,
  runningErrorBulkActions,
  FINGERPRINTS_SHOWN,
  countMergedFingerprints,
  groupFingerprints,
  mergedInto,
  unmergeFingerprint,
  groupTickets,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { bulkRoutes } from './bulk-routes.js';
import { flash, renderPage, seat } from '../../shared/request-context.js';
import { fingerprintRuleRoutes, fingerprintRulesCardData } from './fingerprint-rules-routes.js';
import {
  formText,
  keptText,
  postedFields,
  redirectWithForm,
  takeForm,
} from '../../shared/kept-form.js';
import { groupLinkForm } from '../feedback/link-routes.js';
import { DEFAULT_ERROR_SEARCH, errorListPage, type ErrorListFilter } from './list-views.js';
import { errorGroupPage } from './group-views.js';
import { releasesPage } from './releases-views.js';
import {
  errorSettingsPage,
  errorSettingsPath,
  scrubbingFormValuesOf,
  type ScrubbingFormValues,
} from './setup-views.js';
import { workspaceBase } from '../../shared/layout.js';
import { pageParam } from '../../shared/pager.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { capability } from '../../shared/access.js';

/**
 * The page's search (issue 43), as the URL carries it: `q` as typed; without one, the default
 * `is:unresolved`. Links from before the grammar (`?status=`, `?source=`, `?environment=`) still
 * open what they showed: each is folded into the query as the term it stands for, and an unknown
 * status or source is skipped (the default view), as it always was.
 */
function searchParam(query: Request['query']): string {
  const typed = typeof query.q === 'string' ? query.q.trim() : undefined;
  let q = typed ?? DEFAULT_ERROR_SEARCH;
  if (typed === undefined && query.status === 'all') q = '';
  if (typed === undefined && isErrorStatus(query.status)) q = `is:${query.status}`;
  if (isErrorSource(query.source)) q = withKeyReplaced(q, ['source'], `source:${query.source}`);
  const environment = typeof query.environment === 'string' ? query.environment.trim() : '';
  if (environment) {
    q = withKeyReplaced(q, ['env', 'environment'], `env:${searchValue(environment.slice(0, 40))}`);
  }
  return q;
}

function zeroCounts<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

const STATUS_DONE: Record<ErrorStatus, string> = {
  unresolved: 'Marked unresolved.',
  resolved: 'Resolved. A new occurrence will reopen it as a regression.',
  ignored: 'Ignored. New occurrences still count but keep it out of the unresolved list.',
};

export function errorRoutes({ db, config, settings, symbolicator, logger }: WebDeps): RouteTable {
  const routes = routeTable();

  routes.get('/', capability('errors.read'), async (req, res) => {
    const { workspace, member } = seat(res);
    const q = searchParam(req.query);
    const page = pageParam(req.query.page);
    const [listed, retained, allGroups, environments] = await Promise.all([
      listErrorGroups(db, workspace.id, { q, page, viewerMemberId: member.id }).then(
        (list) => ({ list, error: undefined }),
        (error: unknown) => {
          // A malformed search is said under the box (the page answers 422), never an empty list.
          if (error instanceof AppError && error.code === 'validation_failed') {
            return { list: undefined, error: error.options.fields?.q ?? error.message };
          }
          throw error;
        },
      ),
      retainedOccurrences(db, workspace.id),
      countErrorGroups(db, workspace.id),
      errorEnvironments(db, workspace.id),
    ]);
    const { list, error } = listed;
    const shownIds = list?.groups.map((g) => g.id) ?? [];
    const canTriage = can(member.role, 'errors.triage');
    const [sparklines, facts, assignees, bulk] = await Promise.all([
      occurrenceSparklines(db, workspace.id, shownIds),
      groupLatestFacts(db, workspace.id, shownIds),
      assigneeNames(db, list?.groups.map((g) => g.assignee_member_id) ?? []),
      // The bulk bar is for those who may triage (issue 43).
      canTriage
        ? Promise.all([
            assignableTo(db, workspace.id, 'errors.read'),
            runningErrorBulkActions(db, workspace.id),
          ]).then(([people, running]) => ({ assignees: people, running }))
        : Promise.resolve(undefined),
    ]);
    const filter: ErrorListFilter = { q, terms: error ? [] : parseSearch(q), error };
    await renderPage(
      req,
      res,
      (ctx) =>
        errorListPage(ctx, {
          workspace,
          publicUrl: config.PUBLIC_URL,
          ingestionEnabled: settings.errorIngestionEnabled,
          filter,
          page,
          pages: list?.pages ?? 1,
          groups: list?.groups ?? [],
          sparklines,
          facts,
          assignees,
          counts: list?.counts ?? zeroCounts(ERROR_SOURCES),
          statusCounts: list?.statusCounts ?? zeroCounts(ERROR_STATUSES),
          allGroups,
          environments,
          retained,
          bulk,
          matching: list?.totalGroups ?? 0,
        }),
      error ? 422 : 200,
    );
  });

  bulkRoutes(routes, db, logger);

  // Errors → Releases (issue 43); before '/:groupId', which would take the word as an id.
  routes.get('/releases', capability('errors.read'), async (req, res) => {
    const { workspace } = seat(res);
    const releases = await listReleases(db, workspace.id);
    await renderPage(req, res, (ctx) => releasesPage(ctx, { workspace, releases }));
  });

  /** The group page's "Resolve in next release": a refusal (no release known) is a flash. */
  async function resolveInNext(req: Request, workspaceId: string, groupId: string): Promise<void> {
    try {
      const group = await resolveInNextRelease(db, workspaceId, groupId);
      if (!group) throw new AppError('not_found', 'No such error group in this workspace.');
      flash(
        req,
        'ok',
        `Resolved in the release after ${group.resolved_in_release ?? 'the newest'}: an occurrence on a newer release will reopen it.`,
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      flash(req, 'error', error.message);
    }
  }

  routes.get('/:groupId', capability('errors.read'), async (req, res) => {
    const { workspace, member } = seat(res);
    const group = await findErrorGroup(db, workspace.id, req.params.groupId);
    if (!group) {
      // Issue 43: a group merged away; its old links (mentions, alerts, bookmarks) lead on.
      const holder = await mergedInto(db, workspace.id, req.params.groupId);
      if (!holder) throw new AppError('not_found', 'No such error group in this workspace.');
      res.redirect(302, `${workspaceBase(workspace)}/errors/${holder}`);
      return;
    }
    const canTriage = can(member.role, 'errors.triage');
    const [page, ticket, hours, days, tags, names, assignees, fingerprints, merged] =
      await Promise.all([
        occurrencePage(db, group, pageParam(req.query.page)),
        ticketForErrorGroup(db, workspace.id, group.id),
        occurrenceHours(db, workspace.id, group.id),
        occurrenceSparklines(db, workspace.id, [group.id]),
        tagBreakdown(db, workspace.id, group.id),
        assigneeNames(db, [group.assignee_member_id]),
        canTriage ? assignableTo(db, workspace.id, 'errors.read') : Promise.resolve([]),
        groupFingerprints(db, workspace.id, group.id, { limit: FINGERPRINTS_SHOWN }),
        countMergedFingerprints(db, workspace.id, group.id),
      ]);
    // Frames still minified are mapped now: a map uploaded after the event shows here too.
    const occurrences = {
      ...page,
      occurrences: await withMappedDetail(symbolicator, page.occurrences),
    };
    const dispatches = ticket ? await listDispatches(db, ticket) : [];
    const linkForm = takeForm(req, groupLinkForm(group.id));
    const feedback = can(member.role, 'feedback.read')
      ? {
          ...(await groupTickets(db, workspace.id, group.id)),
          form: can(member.role, 'feedback.triage')
            ? { value: keptText(linkForm, 'ticket') ?? '', error: linkForm?.errors.ticket }
            : undefined,
        }
      : undefined;
    await renderPage(req, res, (ctx) =>
      errorGroupPage(ctx, {
        workspace,
        group,
        ...occurrences,
        canTriage,
        assignee: assigneeOf(group.assignee_member_id, names),
        assignees,
        canFileTicket: can(member.role, 'errors.file_ticket'),
        ticket: ticket ? { ...ticket, dispatches } : null,
        breakdown: { hours, days: days.get(group.id) ?? [], ...tags },
        fingerprints: { list: fingerprints, merged },
        feedback,
      }),
    );
  });

  // The Fingerprints list's Unmerge buttons (issue 43): the fingerprint's next occurrences make a
  // group of their own; what it brought stays counted here.
  routes.post('/:groupId/unmerge', capability('errors.triage'), async (req, res) => {
    const { workspace, member, user } = seat(res);
    const groupId = String(req.params.groupId);
    const groupPath = `${workspaceBase(workspace)}/errors/${encodeURIComponent(groupId)}`;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const fingerprint = typeof body.fingerprint === 'string' ? body.fingerprint.trim() : '';
    try {
      await unmergeFingerprint(db, {
        workspaceId: workspace.id,
        actor: { kind: 'member', memberId: member.id, role: member.role, name: user.name },
        groupId,
        fingerprint,
      });
      flash(
        req,
        'ok',
        'Unmerged. Its occurrences from now on make a group of their own; those it brought stay counted here.',
      );
    } catch (error) {
      // The group's own fingerprint (422), or one it no longer holds (a second click): a flash.
      const said =
        error instanceof AppError &&
        (error.code === 'validation_failed' ||
          (error.code === 'not_found' && (await findErrorGroup(db, workspace.id, groupId))));
      if (!said) throw error;
      flash(req, 'error', error.message);
    }
    res.redirect(303, groupPath);
  });

  // "Fix with agent": the group's ticket, filed now or already; either way, open it.
  routes.post('/:groupId/feedback', capability('errors.file_ticket'), async (req, res) => {
    const { workspace } = seat(res);
    const filed = await fileTicketForErrorGroup(db, workspace.id, String(req.params.groupId), {
      symbolicator,
    });
    if (!filed) throw new AppError('not_found', 'No such error group in this workspace.');
    flash(
      req,
      'ok',
      filed.created
        ? 'Ticket filed from this error: a connected local agent picks it up now, or dispatch it from here.'
        : 'This error already has a ticket: here it is.',
    );
    res.redirect(303, `${workspaceBase(workspace)}/feedback/${filed.ticket.id}`);
  });

  // The group page's Resolve / Ignore / Reopen buttons.
  routes.post('/:groupId/status', capability('errors.triage'), async (req, res) => {
    const { workspace, user, member } = seat(res);
    const groupId = String(req.params.groupId);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const groupPath = `${workspaceBase(workspace)}/errors/${encodeURIComponent(groupId)}`;
    if (!isErrorStatus(body.status)) {
      if (!(await findErrorGroup(db, workspace.id, groupId))) {
        throw new AppError('not_found', 'No such error group in this workspace.');
      }
      flash(req, 'error', 'Choose Resolve, Ignore or Reopen.');
      res.redirect(303, groupPath);
      return;
    }
    if (body.status === 'resolved' && body.resolve_in === 'next_release') {
      await resolveInNext(req, workspace.id, groupId);
      res.redirect(303, groupPath);
      return;
    }
    const group = await setErrorGroupStatus(db, workspace.id, groupId, body.status, {
      type: 'member',
      id: member.id,
      name: user.name,
    });
    if (!group) throw new AppError('not_found', 'No such error group in this workspace.');
    flash(req, 'ok', STATUS_DONE[group.status]);
    res.redirect(303, groupPath);
  });

  // The group page's assignee control: triage at the door, as for the status; whom one may assign
  // is assignErrorGroup's to decide.
  routes.post('/:groupId/assignee', capability('errors.triage'), async (req, res) => {
    const { workspace, member, user } = seat(res);
    const groupId = String(req.params.groupId);
    const groupPath = `${workspaceBase(workspace)}/errors/${encodeURIComponent(groupId)}`;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const assigneeId = typeof body.assignee_id === 'string' ? body.assignee_id.trim() : '';
    try {
      const group = await assignErrorGroup(db, {
        workspaceId: workspace.id,
        groupId,
        actor: { kind: 'member', memberId: member.id, role: member.role, name: user.name },
        assigneeId: assigneeId || null,
      });
      const names = await assigneeNames(db, [group.assignee_member_id]);
      const name = group.assignee_member_id ? names.get(group.assignee_member_id) : undefined;
      flash(req, 'ok', name ? `Assigned to ${name}.` : 'Nobody is assigned now.');
    } catch (error) {
      if (error instanceof AppError && error.code === 'validation_failed') {
        flash(req, 'error', error.options.fields?.assignee_id ?? error.message);
      } else throw error;
    }
    res.redirect(303, groupPath);
  });

  return routes;
}

/** The group's assignee as the page names them; a seat since removed keeps its place, unnamed. */
function assigneeOf(
  memberId: string | null,
  names: ReadonlyMap<string, string>,
): { id: string; name: string } | null {
  if (!memberId) return null;
  return { id: memberId, name: names.get(memberId) ?? 'A former member' };
}

/** The form as it was sent: the boxes as typed (kept on a refusal), the checkbox as on/off. */
function scrubbingFormValues(body: Record<string, unknown>): ScrubbingFormValues {
  return {
    extra_keys: formText(body.extra_keys),
    safe_fields: formText(body.safe_fields),
    keep_ip: body.keep_ip === 'on',
  };
}

/** The body saveScrubbingSettings validates: one key a line, blank lines skipped. */
function scrubbingBody(values: ScrubbingFormValues): Record<string, unknown> {
  const lines = (text: string) =>
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean);
  return {
    extra_keys: lines(values.extra_keys),
    safe_fields: lines(values.safe_fields),
    keep_ip: values.keep_ip,
  };
}

/**
 * /settings/errors: the public key and a ready report, for anyone who may read errors; its data
 * scrubbing form for `errors.configure` (the rules are saveScrubbingSettings').
 */
export function errorSettingsRoutes({ db, config, settings }: WebDeps): RouteTable {
  const routes = routeTable();

  async function page(
    req: Request,
    res: Response,
    extra: { values?: ScrubbingFormValues; errors?: Record<string, string> } = {},
    status = 200,
  ): Promise<void> {
    const { workspace, member } = seat(res);
    const saved = scrubbingSettingsOf(workspace.settings);
    const canConfigure = can(member.role, 'errors.configure');
    const fingerprintRules = await fingerprintRulesCardData(req, db, workspace.id, canConfigure);
    await renderPage(
      req,
      res,
      (ctx) =>
        errorSettingsPage(ctx, {
          workspace,
          publicUrl: config.PUBLIC_URL,
          ingestionEnabled: settings.errorIngestionEnabled,
          scrubbing: {
            saved,
            values: extra.values ?? scrubbingFormValuesOf(saved),
            errors: extra.errors ?? {},
            canConfigure,
          },
          fingerprintRules,
        }),
      status,
    );
  }

  const SCRUBBING_FORM = 'errors.scrubbing';

  routes.get('/', capability('errors.read'), async (req, res) => {
    // A refused save comes back here (303) with what was typed and why.
    const kept = takeForm(req, SCRUBBING_FORM);
    await page(
      req,
      res,
      kept ? { values: scrubbingFormValues(kept.values), errors: kept.errors } : {},
    );
  });

  routes.post('/scrubbing', capability('errors.configure'), async (req, res) => {
    const { workspace } = seat(res);
    const body: unknown = req.body ?? {};
    const values = scrubbingFormValues(body as Record<string, unknown>);
    try {
      await saveScrubbingSettings(db, workspace.id, scrubbingBody(values));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      // The card is below the fold on a phone: the top of the page says where to look.
      flash(req, 'error', 'The scrubbing settings were not saved: see the marked fields below.');
      redirectWithForm(req, res, errorSettingsPath(workspace), SCRUBBING_FORM, {
        values: postedFields(body, ['extra_keys', 'safe_fields', 'keep_ip']),
        errors: error.options.fields ?? {},
      });
      return;
    }
    flash(
      req,
      'ok',
      `Scrubbing settings saved. New reports use them within ${Math.round(SCRUB_RULES_TTL_MS / 1000)} seconds.`,
    );
    res.redirect(303, errorSettingsPath(workspace));
  });

  fingerprintRuleRoutes(routes, db);
  return routes;
}
