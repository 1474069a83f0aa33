import type { Request, Response } from 'express';
import { AppError } from '@ferry/core';
import { routeTable, type RouteTable } from '@ferry/http';
import {
  activeSeatNames,
  deleteErrorAlertRule,
  errorAlertRuleJson,
  findErrorAlertRule,
  listDeliveryLog,
  listErrorAlertRules,
  readableRooms,
  requestDrain,
  revealSigningSecret,
  saveErrorAlertRule,
  validateErrorAlertRule,
} from '@ferry/workspace';
import { capability } from '../../shared/access.js';
import type { WebDeps } from '../../deps.js';
import { flash, noStore, renderPage, seat } from '../../shared/request-context.js';
import { confirmPage } from '../../shared/confirm.js';
import {
  postedFields,
  redirectWithForm,
  takeForm,
  type KeptValues,
  formText,
  formTexts,
} from '../../shared/kept-form.js';
import {
  errorAlertRulePage,
  errorAlertRulePath,
  errorAlertsPage,
  errorAlertsPath,
  formValuesOf,
  type ErrorAlertFormValues,
} from './alerts-views.js';

/**
 * Settings > Error alerts ({base}/settings/error-alerts, issues 26 and 43), admins only
 * (`errors.manage_alerts`): the workspace's rules, a form to add one, and a page per rule to edit
 * or delete it. Every form is turned into the API's body and validated by the same domain
 * function, so both refuse the same things; a refused form Post/Redirect/Gets back to its page
 * with what was typed and why.
 */

function formValues(body: Record<string, unknown>): ErrorAlertFormValues {
  return {
    name: formText(body.name).trim(),
    room_id: formText(body.room_id).trim(),
    new_group: body.new_group === 'on',
    regression: body.regression === 'on',
    frequency_on: body.frequency_on === 'on',
    frequency_count: formText(body.frequency_count).trim(),
    frequency_minutes: formText(body.frequency_minutes).trim(),
    url: formText(body.url).trim(),
    environments: formText(body.environments),
    sources: formTexts(body.sources),
    levels: formText(body.levels),
    releases: formText(body.releases),
    tags: formText(body.tags),
    notify_member_ids: formTexts(body.notify_member_ids),
    hand_to_agent: body.hand_to_agent === 'on',
  };
}

/** A comma-separated field as the API's list: null when empty. */
function list(raw: string): string[] | null {
  const items = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length ? items : null;
}

/** The API body a form stands for (empty means null; numbers as numbers, or as typed to fail). */
function ruleBody(values: ErrorAlertFormValues): Record<string, unknown> {
  const number = (raw: string): unknown => (/^\d{1,9}$/.test(raw) ? Number(raw) : raw);
  return {
    ...(values.name ? { name: values.name } : {}),
    room_id: values.room_id || null,
    new_group: values.new_group,
    regression: values.regression,
    frequency: values.frequency_on
      ? { count: number(values.frequency_count), minutes: number(values.frequency_minutes) }
      : null,
    url: values.url || null,
    environments: list(values.environments),
    sources: values.sources.length ? values.sources : null,
    levels: list(values.levels),
    releases: list(values.releases),
    tags: list(values.tags),
    notify_member_ids: values.notify_member_ids.length ? values.notify_member_ids : null,
    hand_to_agent: values.hand_to_agent,
  };
}

const RULE_FIELDS = [
  'name',
  'room_id',
  'new_group',
  'regression',
  'frequency_on',
  'frequency_count',
  'frequency_minutes',
  'url',
  'environments',
  'levels',
  'releases',
  'tags',
  'hand_to_agent',
] as const;

/** What a refused form keeps: its text fields, and the ticked sources and members. */
function keptValues(body: unknown): KeptValues {
  const posted = body as Record<string, unknown> | undefined;
  return {
    ...postedFields(body, RULE_FIELDS),
    sources: formTexts(posted?.sources),
    notify_member_ids: formTexts(posted?.notify_member_ids),
  };
}

/** The members the form offers, by name. */
const byName = (seats: readonly { id: string; name: string }[]) =>
  [...seats].sort((a, b) => a.name.localeCompare(b.name)).map(({ id, name }) => ({ id, name }));

const ADD_FORM = 'errors.alerts';
const editForm = (ruleId: string) => `errors.alert-rule.${ruleId}`;

export function errorAlertRoutes(deps: WebDeps): RouteTable {
  const { db, box } = deps;
  const routes = routeTable();
  const admin = capability('errors.manage_alerts');

  routes.get('/', admin, async (req, res) => {
    const { workspace } = seat(res);
    // A refused "Add rule" comes back here (303) with what was typed and why.
    const kept = takeForm(req, ADD_FORM);
    const [rules, rooms, members] = await Promise.all([
      listErrorAlertRules(db, workspace.id),
      readableRooms(db, workspace.id),
      activeSeatNames(db, [workspace.id]),
    ]);
    noStore(res);
    await renderPage(req, res, (ctx) =>
      errorAlertsPage(ctx, {
        workspace,
        rules: rules.map(errorAlertRuleJson),
        rooms,
        members: byName(members),
        values: kept ? formValues(kept.values) : formValuesOf(undefined),
        errors: kept?.errors ?? {},
      }),
    );
  });

  /** Validates and saves a posted rule; a refusal goes back to `back` with the form kept. */
  async function save(
    req: Request,
    res: Response,
    ruleId: string | null,
    back: string,
    form: string,
  ): Promise<boolean> {
    const { workspace, member } = seat(res);
    const body: unknown = req.body ?? {};
    try {
      const input = await validateErrorAlertRule(
        db,
        workspace.id,
        ruleId,
        ruleBody(formValues(body as Record<string, unknown>)),
        deps.settings.ssrf,
      );
      const saved = await saveErrorAlertRule(db, box, workspace.id, ruleId, input, member.id);
      if (!saved) {
        flash(req, 'error', 'That alert rule was deleted meanwhile.');
        res.redirect(303, errorAlertsPath(workspace));
        return false;
      }
      if (saved.hook && saved.releasedDeliveries) await requestDrain(deps.producer, saved.hook.id);
      return true;
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      redirectWithForm(req, res, back, form, {
        values: keptValues(body),
        errors: error.options.fields ?? {},
      });
      return false;
    }
  }

  routes.post('/', admin, async (req, res) => {
    const { workspace } = seat(res);
    const path = errorAlertsPath(workspace);
    if (!(await save(req, res, null, path, ADD_FORM))) return;
    flash(req, 'ok', 'Alert rule added.');
    res.redirect(303, path);
  });

  /** The rule, or a flash and a redirect to the list when the workspace has no such rule. */
  async function ruleOr303(req: Request, res: Response) {
    const { workspace } = seat(res);
    const found = await findErrorAlertRule(db, workspace.id, String(req.params.ruleId));
    if (!found) {
      flash(req, 'error', 'No such alert rule: it may have been deleted.');
      res.redirect(303, errorAlertsPath(workspace));
    }
    return found;
  }

  async function rulePage(req: Request, res: Response, secret?: string): Promise<void> {
    const { workspace } = seat(res);
    const found = await ruleOr303(req, res);
    if (!found) return;
    const rule = errorAlertRuleJson(found);
    const kept = takeForm(req, editForm(rule.id));
    const [rooms, members, deliveries] = await Promise.all([
      readableRooms(db, workspace.id),
      activeSeatNames(db, [workspace.id]),
      found.hook
        ? listDeliveryLog(db, found.hook.id, { pageSize: 10 }).then((log) => log.deliveries)
        : Promise.resolve([]),
    ]);
    noStore(res);
    await renderPage(req, res, (ctx) =>
      errorAlertRulePage(ctx, {
        workspace,
        rule,
        rooms,
        members: byName(members),
        values: kept ? formValues(kept.values) : formValuesOf(rule),
        errors: kept?.errors ?? {},
        deliveries,
        secret,
      }),
    );
  }

  routes.get('/rules/:ruleId', admin, async (req, res) => {
    await rulePage(req, res);
  });

  routes.post('/rules/:ruleId', admin, async (req, res) => {
    const { workspace } = seat(res);
    const found = await ruleOr303(req, res);
    if (!found) return;
    const path = errorAlertRulePath(workspace, found.rule.id);
    if (!(await save(req, res, found.rule.id, path, editForm(found.rule.id)))) return;
    flash(req, 'ok', 'Alert rule saved.');
    res.redirect(303, path);
  });

  // Delete asks first, on a page of its own (shared/confirm.ts); its button posts below.
  routes.get('/rules/:ruleId/delete', admin, async (req, res) => {
    const { workspace } = seat(res);
    const found = await ruleOr303(req, res);
    if (!found) return;
    const path = errorAlertRulePath(workspace, found.rule.id);
    await renderPage(req, res, (ctx) =>
      confirmPage(ctx, {
        question: `Delete the alert rule “${found.rule.name}”?`,
        section: 'error-alerts',
        consequences:
          'It stops alerting at once. Its URL’s signing secret and delivery log go with it; alerts it already posted stay in their room.',
        action: `${path}/delete`,
        confirmLabel: 'Delete rule',
        cancelHref: path,
      }),
    );
  });

  routes.post('/rules/:ruleId/delete', admin, async (req, res) => {
    const { workspace } = seat(res);
    const deleted = await deleteErrorAlertRule(db, workspace.id, String(req.params.ruleId));
    flash(
      req,
      deleted ? 'ok' : 'error',
      deleted ? 'Alert rule deleted.' : 'No such alert rule: it may have been deleted.',
    );
    res.redirect(303, errorAlertsPath(workspace));
  });

  // A POST that answers the page with the secret in it: never in a GET-able page or the cache.
  routes.post('/rules/:ruleId/reveal', admin, async (req, res) => {
    const { workspace } = seat(res);
    const found = await ruleOr303(req, res);
    if (!found) return;
    if (!found.hook) {
      flash(req, 'error', 'Set a URL first: the signing secret belongs to it.');
      return res.redirect(303, errorAlertRulePath(workspace, found.rule.id));
    }
    await rulePage(req, res, revealSigningSecret(box, found.hook));
  });

  return routes;
}
