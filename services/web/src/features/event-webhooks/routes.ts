import type { Request, Response } from 'express';
import { AppError } from '@ferry/core';
import { routeTable, type RouteTable } from '@ferry/http';
import {
  catalogJson,
  createEndpoint,
  databaseNow,
  deleteEndpoint,
  endpointJson,
  findDelivery,
  findEndpoint,
  listDeliveryLog,
  listEndpoints,
  readableRooms,
  recoverFailedDeliveries,
  requestDrain,
  requestSendOnce,
  revealSigningSecret,
  rotateEndpointSecret,
  setEndpointEnabled,
  updateEndpoint,
  validateEndpoint,
  waitForAttempt,
  type Endpoint,
} from '@ferry/workspace';
import { capability } from '../../shared/access.js';
import type { WebDeps } from '../../deps.js';
import { flash, noStore, renderPage, seat } from '../../shared/request-context.js';
import {
  postedFields,
  redirectWithForm,
  takeForm,
  formText,
  formTexts,
} from '../../shared/kept-form.js';
import {
  catalogPage,
  deleteEndpointConfirmPage,
  endpointPage,
  endpointPath,
  endpointsPage,
  eventWebhooksPath,
  formValuesOf,
  type EndpointFormValues,
} from './views.js';

/**
 * Settings → Event webhooks (issue 44), admins only (`event_webhooks.manage`): the endpoints and
 * a form to add one, each endpoint's page (settings, secret, rotate with an overlap, enable or
 * disable, recover, delivery log with Send again), and the catalog. Forms go through the same
 * domain validation as the API; a refused one comes back (303) with what was typed and why.
 */

function formValues(body: Record<string, unknown>): EndpointFormValues {
  return {
    url: formText(body.url).trim(),
    description: formText(body.description),
    event_types: formTexts(body.event_types),
    environments: formText(body.environments),
    room_ids: formTexts(body.room_ids),
    max_per_second: formText(body.max_per_second).trim(),
  };
}

/** The API body a form stands for. */
function endpointBody(values: EndpointFormValues): Record<string, unknown> {
  const environments = values.environments
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const rate = values.max_per_second;
  return {
    url: values.url,
    description: values.description,
    event_types: values.event_types,
    environments: environments.length ? environments : null,
    room_ids: values.room_ids.length ? values.room_ids : null,
    max_per_second: rate === '' ? null : /^\d{1,9}$/.test(rate) ? Number(rate) : rate,
  };
}

const ADD_FORM = 'event-webhooks.add';
const editForm = (id: string) => `event-webhooks.endpoint.${id}`;
const FIELDS = ['url', 'description', 'environments', 'max_per_second'] as const;

function kept(body: unknown) {
  const posted = body as Record<string, unknown> | undefined;
  return {
    ...postedFields(body, FIELDS),
    event_types: formTexts(posted?.event_types),
    room_ids: formTexts(posted?.room_ids),
  };
}

export function eventWebhookRoutes(deps: WebDeps): RouteTable {
  const { db, box, producer } = deps;
  const routes = routeTable();
  const admin = capability('event_webhooks.manage');

  routes.get('/', admin, async (req, res) => {
    const { workspace } = seat(res);
    const form = takeForm(req, ADD_FORM);
    const [endpoints, rooms] = await Promise.all([
      listEndpoints(db, workspace.id),
      readableRooms(db, workspace.id),
    ]);
    noStore(res);
    await renderPage(req, res, (ctx) =>
      endpointsPage(ctx, {
        workspace,
        endpoints: endpoints.map((endpoint) => endpointJson(endpoint)),
        rooms,
        values: form ? formValues(form.values) : formValuesOf(undefined),
        errors: form?.errors ?? {},
      }),
    );
  });

  routes.get('/catalog', admin, async (req, res) => {
    const { workspace } = seat(res);
    await renderPage(req, res, (ctx) => catalogPage(ctx, { workspace, catalog: catalogJson() }));
  });

  /** Validates the posted form; a refusal goes back to `back` with the form kept. */
  async function validated(req: Request, res: Response, back: string, form: string) {
    const { workspace } = seat(res);
    const body: unknown = req.body ?? {};
    try {
      return await validateEndpoint(
        db,
        workspace.id,
        endpointBody(formValues(body as Record<string, unknown>)),
        deps.settings.ssrf,
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      redirectWithForm(req, res, back, form, {
        values: kept(body),
        errors: error.options.fields ?? {},
      });
      return undefined;
    }
  }

  routes.post('/', admin, async (req, res) => {
    const { workspace, member } = seat(res);
    const input = await validated(req, res, eventWebhooksPath(workspace), ADD_FORM);
    if (!input) return;
    const { endpoint } = await createEndpoint(db, box, workspace.id, input, member.id);
    flash(req, 'ok', 'The endpoint is ready. Reveal its signing secret to set up your receiver.');
    res.redirect(303, endpointPath(workspace, endpoint.id));
  });

  /** The endpoint, or a flash and a redirect to the list. */
  async function endpointOr303(req: Request, res: Response): Promise<Endpoint | undefined> {
    const { workspace } = seat(res);
    const found = await findEndpoint(db, workspace.id, String(req.params.endpointId));
    if (!found) {
      flash(req, 'error', 'No such endpoint: it may have been deleted.');
      res.redirect(303, eventWebhooksPath(workspace));
    }
    return found;
  }

  async function page(req: Request, res: Response, secret?: string): Promise<void> {
    const { workspace } = seat(res);
    const endpoint = await endpointOr303(req, res);
    if (!endpoint) return;
    const json = endpointJson(endpoint);
    const form = takeForm(req, editForm(endpoint.id));
    const [rooms, log] = await Promise.all([
      readableRooms(db, workspace.id),
      listDeliveryLog(db, endpoint.id, { pageSize: 25 }),
    ]);
    noStore(res);
    await renderPage(req, res, (ctx) =>
      endpointPage(ctx, {
        workspace,
        endpoint: json,
        rooms,
        deliveries: log.deliveries,
        values: form ? formValues(form.values) : formValuesOf(json),
        errors: form?.errors ?? {},
        secret,
      }),
    );
  }

  routes.get('/endpoints/:endpointId', admin, async (req, res) => {
    await page(req, res);
  });

  routes.post('/endpoints/:endpointId', admin, async (req, res) => {
    const { workspace } = seat(res);
    const endpoint = await endpointOr303(req, res);
    if (!endpoint) return;
    const here = endpointPath(workspace, endpoint.id);
    const input = await validated(req, res, here, editForm(endpoint.id));
    if (!input) return;
    await updateEndpoint(db, workspace.id, endpoint.id, input);
    flash(req, 'ok', 'Endpoint saved.');
    res.redirect(303, here);
  });

  // A POST that answers the page with the secret in it: never in a GET-able page or the cache.
  routes.post('/endpoints/:endpointId/reveal', admin, async (req, res) => {
    const endpoint = await endpointOr303(req, res);
    if (!endpoint) return;
    await page(req, res, revealSigningSecret(box, endpoint));
  });

  routes.post('/endpoints/:endpointId/rotate', admin, async (req, res) => {
    const { workspace } = seat(res);
    const endpoint = await endpointOr303(req, res);
    if (!endpoint) return;
    const here = endpointPath(workspace, endpoint.id);
    const raw = formText((req.body as Record<string, unknown> | undefined)?.overlap_hours).trim();
    const hours = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
    try {
      await rotateEndpointSecret(db, box, workspace.id, endpoint.id, hours);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      redirectWithForm(req, res, here, editForm(endpoint.id), {
        values: {},
        errors: error.options.fields ?? {},
      });
      return;
    }
    flash(
      req,
      'ok',
      hours
        ? `New signing secret. The previous one keeps signing beside it for ${hours} h.`
        : 'New signing secret. The previous one stopped signing.',
    );
    res.redirect(303, here);
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    routes.post(`/endpoints/:endpointId/${action}`, admin, async (req, res) => {
      const { workspace, user } = seat(res);
      const endpoint = await endpointOr303(req, res);
      if (!endpoint) return;
      const moved = await setEndpointEnabled(
        db,
        workspace.id,
        endpoint.id,
        enabled,
        `Disabled by ${user.name}.`,
      );
      if (enabled) await requestDrain(producer, endpoint.id);
      flash(
        req,
        'ok',
        enabled
          ? `Enabled; ${moved} held deliveries go out in order.`
          : 'Disabled: events are held and go out, in order, when you enable it again.',
      );
      res.redirect(303, endpointPath(workspace, endpoint.id));
    });
  }

  // Deleting asks first: the GET is the question, the POST (its button) deletes.
  routes.get('/endpoints/:endpointId/delete', admin, async (req, res) => {
    const { workspace } = seat(res);
    const endpoint = await endpointOr303(req, res);
    if (!endpoint) return;
    await renderPage(req, res, (ctx) =>
      deleteEndpointConfirmPage(ctx, { workspace, endpoint: endpointJson(endpoint) }),
    );
  });

  routes.post('/endpoints/:endpointId/delete', admin, async (req, res) => {
    const { workspace } = seat(res);
    const deleted = await deleteEndpoint(db, workspace.id, String(req.params.endpointId));
    flash(req, deleted ? 'ok' : 'error', deleted ? 'Endpoint deleted.' : 'No such endpoint.');
    res.redirect(303, eventWebhooksPath(workspace));
  });

  routes.post('/endpoints/:endpointId/recover', admin, async (req, res) => {
    const { workspace } = seat(res);
    const endpoint = await endpointOr303(req, res);
    if (!endpoint) return;
    const here = endpointPath(workspace, endpoint.id);
    const raw = formText((req.body as Record<string, unknown> | undefined)?.since).trim();
    const since = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(raw)
      ? new Date(`${raw}Z`)
      : new Date(Number.NaN);
    if (Number.isNaN(since.getTime())) {
      redirectWithForm(req, res, here, editForm(endpoint.id), {
        values: {},
        errors: { since: 'Enter a date and time.' },
      });
      return;
    }
    const recovered = await recoverFailedDeliveries(db, workspace.id, endpoint.id, since);
    if (recovered) await requestDrain(producer, endpoint.id);
    flash(req, 'ok', `${recovered} failed deliveries go out again, in order.`);
    res.redirect(303, here);
  });

  // A signed webhook.test to this endpoint alone, whatever its state (check a fixed receiver before
  // enabling it again); its attempt is in the log like any other.
  routes.post('/endpoints/:endpointId/test', admin, async (req, res) => {
    const { workspace } = seat(res);
    const endpoint = await endpointOr303(req, res);
    if (!endpoint) return;
    const since = await databaseNow(db);
    await requestSendOnce(producer, endpoint.id);
    const done = await waitForAttempt(db, endpoint.id, since, deps.settings.sendOnceWaitMs);
    flash(
      req,
      'ok',
      done
        ? 'The test event (webhook.test) was sent: its attempt is in the log below.'
        : 'A test event (webhook.test) is on its way. Reload to see it in the log.',
    );
    res.redirect(303, endpointPath(workspace, endpoint.id));
  });

  routes.post('/endpoints/:endpointId/deliveries/:deliveryId/resend', admin, async (req, res) => {
    const { workspace } = seat(res);
    const endpoint = await endpointOr303(req, res);
    if (!endpoint) return;
    const delivery = await findDelivery(db, endpoint.id, String(req.params.deliveryId));
    if (!delivery) throw new AppError('not_found', 'No such delivery.');
    const since = await databaseNow(db);
    await requestSendOnce(producer, endpoint.id, delivery.id);
    const done = await waitForAttempt(db, endpoint.id, since, deps.settings.sendOnceWaitMs);
    flash(
      req,
      'ok',
      done
        ? 'Sent again with the same webhook-id: the attempt is in the log below.'
        : 'Sent again with the same webhook-id. Reload to see the attempt.',
    );
    res.redirect(303, endpointPath(workspace, endpoint.id));
  });

  return routes;
}
