import type { Request, Response } from 'express';
import { AppError } from '@ferry/core';
import type { OutgoingWebhook } from '@ferry/db';
import type { WebDeps } from '../../deps.js';
import {
  createOutgoingHook,
  DELIVERY_LOG_PAGE_SIZE,
  databaseNow,
  deleteOutgoingHook,
  disableOutgoingHook,
  findDelivery,
  findOutgoingHook,
  listDeliveryLog,
  previousSecretLive,
  reEnableOutgoingHook,
  requestDrain,
  requestSendOnce,
  revealSigningSecret,
  rotateSigningSecret,
  checkedTargetUrl,
  waitForAttempt,
  type RoomSeat,
} from '@ferry/workspace';
import { flash, noStore, renderPage, seat } from '../../shared/request-context.js';
import { plural } from '../../shared/format.js';
import { pageParam } from '../../shared/pager.js';
import { deleteHookConfirmPage, outgoingHookPage } from './outgoing-views.js';
import { redirectWithForm } from '../../shared/kept-form.js';
import { OUTGOING_FORM, outgoingHookPath, webhooksPath } from './views.js';
import { settingsRoom, settingsRoomItem, type SettingsItemKind } from '../rooms/settings-routes.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { capability } from '../../shared/access.js';

/**
 * Outgoing hooks: the create POST of the room's Settings -> Webhooks tab (webhooks/routes.ts shows
 * the form and the list) and the hook page. Mounted at
 * /w/:wid/:slug/rooms/:roomId/settings/webhooks/outgoing. Admins only (`webhooks.manage`); every
 * state change is a CSRF-checked POST followed by a redirect, so a reload never repeats it.
 */

/** The hook a path names: `:hookId` within the settings room. */
const HOOK: SettingsItemKind<OutgoingWebhook> = {
  param: 'hookId',
  find: findOutgoingHook,
  path: outgoingHookPath,
  missing: 'No such outgoing webhook.',
};

export function outgoingHookRoutes(deps: WebDeps): RouteTable {
  const { db, box, producer } = deps;
  const ssrf = deps.settings.ssrf;
  const routes = routeTable();
  const admin = capability('webhooks.manage');

  async function hookPage(
    req: Request,
    res: Response,
    room: RoomSeat,
    hook: OutgoingWebhook,
    rawSecret?: string,
  ): Promise<void> {
    const { workspace } = seat(res);
    const page = pageParam((req.query as Record<string, unknown>).page);
    const { deliveries, total } = await listDeliveryLog(db, hook.id, { page });
    noStore(res);
    await renderPage(req, res, (ctx) =>
      outgoingHookPage(ctx, {
        workspace,
        room: room.room,
        hook,
        rotating: previousSecretLive(hook),
        deliveries,
        page,
        pages: Math.max(1, Math.ceil(total / DELIVERY_LOG_PAGE_SIZE)),
        total,
        rawSecret,
      }),
    );
  }

  routes.post('/', admin, async (req, res) => {
    const { workspace, member } = seat(res);
    const room = await settingsRoom(db, req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const targetUrl = typeof body.target_url === 'string' ? body.target_url.trim() : '';
    const target = await checkedTargetUrl(targetUrl, ssrf);
    if (!target.ok) {
      // Back to the tab, whose form shows the problem (webhooks/routes.ts takes it).
      return redirectWithForm(req, res, webhooksPath(workspace, room.room.id), OUTGOING_FORM, {
        values: { target_url: targetUrl },
        errors: { target_url: target.problem },
      });
    }
    const { hook } = await createOutgoingHook(db, box, {
      workspaceId: workspace.id,
      roomId: room.room.id,
      // The URL as checked, in its normal form.
      targetUrl: target.url,
      createdBy: member.id,
    });
    flash(req, 'ok', 'The hook is ready. Reveal its signing secret to set up your receiver.');
    res.redirect(303, outgoingHookPath(workspace, room.room.id, hook.id));
  });

  routes.get('/:hookId', admin, async (req, res) => {
    const { room, item: hook } = await settingsRoomItem(db, req, res, HOOK);
    await hookPage(req, res, room, hook);
  });

  // A POST that answers the page with the secret in it: never in a GET-able page or the cache.
  routes.post('/:hookId/reveal', admin, async (req, res) => {
    const { room, item: hook } = await settingsRoomItem(db, req, res, HOOK);
    await hookPage(req, res, room, hook, revealSigningSecret(box, hook));
  });

  routes.post('/:hookId/rotate', admin, async (req, res) => {
    const { item: hook, here } = await settingsRoomItem(db, req, res, HOOK);
    await rotateSigningSecret(db, box, hook);
    flash(
      req,
      'ok',
      'New signing secret. The previous one keeps signing for 24 hours: update your receiver.',
    );
    res.redirect(303, here);
  });

  routes.post('/:hookId/enable', admin, async (req, res) => {
    const { item: hook, here } = await settingsRoomItem(db, req, res, HOOK);
    const released = await reEnableOutgoingHook(db, hook);
    await requestDrain(producer, hook.id);
    flash(
      req,
      'ok',
      released
        ? `The hook is enabled again; ${plural(released, 'held delivery goes', 'held deliveries go')} out in message order.`
        : 'The hook is enabled again.',
    );
    res.redirect(303, here);
  });

  routes.post('/:hookId/disable', admin, async (req, res) => {
    const { user } = seat(res);
    const { item: hook, here } = await settingsRoomItem(db, req, res, HOOK);
    const disabled = await disableOutgoingHook(db, hook, `Disabled by ${user.name}.`);
    flash(
      req,
      'ok',
      disabled
        ? 'The hook is disabled: messages posted meanwhile are held and go out, in order, when you re-enable it.'
        : 'The hook was already disabled.',
    );
    res.redirect(303, here);
  });

  // Deleting asks first: the GET is the question, the POST (its button) deletes.
  routes.get('/:hookId/delete', admin, async (req, res) => {
    const { workspace } = seat(res);
    const { room, item: hook, here } = await settingsRoomItem(db, req, res, HOOK);
    await renderPage(req, res, (ctx) =>
      deleteHookConfirmPage(ctx, { workspace, room: room.room, hook, cancelHref: here }),
    );
  });

  routes.post('/:hookId/delete', admin, async (req, res) => {
    const { workspace } = seat(res);
    const { room, item: hook } = await settingsRoomItem(db, req, res, HOOK);
    await deleteOutgoingHook(db, hook);
    flash(req, 'ok', `The hook to ${hook.target_url} is deleted: nothing more is sent to it.`);
    res.redirect(303, webhooksPath(workspace, room.room.id));
  });

  /**
   * Asks webhooks-out to send once, and waits (bounded) for the attempt: the page the redirect
   * leads to then shows it and the failure counter as they are, not a click behind.
   */
  async function sendOnceAndWait(hookId: string, deliveryId?: string): Promise<boolean> {
    const since = await databaseNow(db);
    await requestSendOnce(producer, hookId, deliveryId);
    return waitForAttempt(db, hookId, since, deps.settings.sendOnceWaitMs);
  }

  routes.post('/:hookId/test', admin, async (req, res) => {
    const { item: hook, here } = await settingsRoomItem(db, req, res, HOOK);
    const done = await sendOnceAndWait(hook.id);
    flash(
      req,
      'ok',
      done
        ? 'The test event was sent: its attempt is in the log below.'
        : 'A test event is on its way. Reload to see it in the log.',
    );
    res.redirect(303, here);
  });

  routes.post('/:hookId/deliveries/:deliveryId/resend', admin, async (req, res) => {
    const { item: hook, here } = await settingsRoomItem(db, req, res, HOOK);
    const { deliveryId } = req.params as { deliveryId: string };
    const delivery = await findDelivery(db, hook.id, deliveryId);
    if (!delivery) throw new AppError('not_found', 'No such delivery.');
    const done = await sendOnceAndWait(hook.id, delivery.id);
    flash(
      req,
      'ok',
      done
        ? 'Sent again with the same webhook-id: the attempt is in the log below.'
        : 'Sent again with the same webhook-id. Reload to see the attempt.',
    );
    res.redirect(303, here);
  });

  return routes;
}
