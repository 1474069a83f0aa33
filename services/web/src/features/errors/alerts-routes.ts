import type { Request, Response } from 'express';
import { AppError } from '@ferry/core';
import { routeTable, type RouteTable } from '@ferry/http';
import {
  errorAlertRulesJson,
  findErrorAlertSettings,
  listDeliveryLog,
  readableRooms,
  requestDrain,
  revealSigningSecret,
  saveErrorAlertRules,
  validateErrorAlertRules,
} from '@ferry/workspace';
import { capability } from '../../shared/access.js';
import type { WebDeps } from '../../deps.js';
import { flash, noStore, renderPage, seat } from '../../shared/request-context.js';
import { postedFields, redirectWithForm, takeForm } from '../../shared/kept-form.js';
import {
  errorAlertsPage,
  errorAlertsPath,
  formValuesOf,
  type ErrorAlertFormValues,
} from './alerts-views.js';

/**
 * Settings > Error alerts ({base}/settings/error-alerts, issue 26), admins only
 * (`errors.manage_alerts`): the workspace's alert rule as a CSRF-checked form. The form is turned
 * into the API's body and validated by the same domain function, so both refuse the same things.
 */

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function formValues(body: Record<string, unknown>): ErrorAlertFormValues {
  return {
    room_id: text(body.room_id).trim(),
    new_group: body.new_group === 'on',
    regression: body.regression === 'on',
    frequency_on: body.frequency_on === 'on',
    frequency_count: text(body.frequency_count).trim(),
    frequency_minutes: text(body.frequency_minutes).trim(),
    url: text(body.url).trim(),
    environments: text(body.environments),
  };
}

/** The API body a form stands for (empty means null; numbers as numbers, or as typed to fail). */
function ruleBody(values: ErrorAlertFormValues): Record<string, unknown> {
  const number = (raw: string): unknown => (/^\d{1,9}$/.test(raw) ? Number(raw) : raw);
  const environments = values.environments
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return {
    room_id: values.room_id || null,
    new_group: values.new_group,
    regression: values.regression,
    frequency: values.frequency_on
      ? { count: number(values.frequency_count), minutes: number(values.frequency_minutes) }
      : null,
    url: values.url || null,
    environments: environments.length ? environments : null,
  };
}

export function errorAlertRoutes(deps: WebDeps): RouteTable {
  const { db, box } = deps;
  const routes = routeTable();
  const admin = capability('errors.manage_alerts');

  async function page(
    req: Request,
    res: Response,
    extra: { values?: ErrorAlertFormValues; errors?: Record<string, string>; secret?: string } = {},
    status = 200,
  ): Promise<void> {
    const { workspace } = seat(res);
    const settings = await findErrorAlertSettings(db, workspace.id);
    const rules = errorAlertRulesJson(settings);
    const [rooms, deliveries] = await Promise.all([
      readableRooms(db, workspace.id),
      settings.hook
        ? listDeliveryLog(db, settings.hook.id, { pageSize: 10 }).then((log) => log.deliveries)
        : Promise.resolve([]),
    ]);
    noStore(res);
    await renderPage(
      req,
      res,
      (ctx) =>
        errorAlertsPage(ctx, {
          workspace,
          rules,
          rooms,
          values: extra.values ?? formValuesOf(rules),
          errors: extra.errors ?? {},
          deliveries,
          secret: extra.secret,
        }),
      status,
    );
  }

  const RULES_FORM = 'errors.alerts';
  const RULE_FIELDS = [
    'room_id',
    'new_group',
    'regression',
    'frequency_on',
    'frequency_count',
    'frequency_minutes',
    'url',
    'environments',
  ] as const;

  routes.get('/', admin, async (req, res) => {
    // A refused save comes back here (303) with what was typed and why.
    const kept = takeForm(req, RULES_FORM);
    await page(req, res, kept ? { values: formValues(kept.values), errors: kept.errors } : {});
  });

  routes.post('/', admin, async (req, res) => {
    const { workspace, member } = seat(res);
    const body: unknown = req.body ?? {};
    const values = formValues(body as Record<string, unknown>);
    try {
      const input = await validateErrorAlertRules(
        db,
        workspace.id,
        ruleBody(values),
        deps.settings.ssrf,
      );
      const saved = await saveErrorAlertRules(db, box, workspace.id, input, member.id);
      if (saved.hook && saved.releasedDeliveries) await requestDrain(deps.producer, saved.hook.id);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      return redirectWithForm(req, res, errorAlertsPath(workspace), RULES_FORM, {
        values: postedFields(body, RULE_FIELDS),
        errors: error.options.fields ?? {},
      });
    }
    flash(req, 'ok', 'Error alert rules saved.');
    res.redirect(303, errorAlertsPath(workspace));
  });

  // A POST that answers the page with the secret in it: never in a GET-able page or the cache.
  routes.post('/reveal', admin, async (req, res) => {
    const { workspace } = seat(res);
    const { hook } = await findErrorAlertSettings(db, workspace.id);
    if (!hook) {
      flash(req, 'error', 'Set a URL first: the signing secret belongs to it.');
      return res.redirect(303, errorAlertsPath(workspace));
    }
    await page(req, res, { secret: revealSigningSecret(box, hook) });
  });

  return routes;
}
