import type { Request, Response } from 'express';
import { AppError, fieldErrors } from '@ferry/core';
import type { WebDeps } from '../../deps.js';
import {
  createIncomingKey,
  createIncomingKeySchema,
  deleteIncomingKey,
  findIncomingKey,
  listIncomingKeys,
  listRoomOutgoingHooks,
  revealIncomingKey,
  rotateIncomingKey,
  setIncomingKeyEnabled,
  setIncomingKeyGithubSecret,
  type IncomingKeyListItem,
  roomLabel,
  type RoomSeat,
} from '@ferry/workspace';
import { flash, noStore, renderPage, seat } from '../../shared/request-context.js';
import { keptText, postedText, redirectWithForm, takeForm } from '../../shared/kept-form.js';
import { pageParam } from '../../shared/pager.js';
import {
  OUTGOING_FORM,
  deleteKeyConfirmPage,
  incomingKeyPage,
  incomingKeyPath,
  rotateKeyConfirmPage,
  webhooksPath,
  webhooksTabPage,
} from './views.js';
import { settingsRoom, settingsRoomItem, type SettingsItemKind } from '../rooms/settings-routes.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { capability } from '../../shared/access.js';

/**
 * The room's Settings -> Webhooks tab (incoming keys and the outgoing hooks list) and the incoming
 * key page. Mounted at /w/:wid/:slug/rooms/:roomId/settings/webhooks. Outgoing hooks are created
 * and managed by outgoing-routes.ts under `.../outgoing`; this router only lists them and
 * shows the create form, and answers nothing under `/outgoing` so that router gets those paths.
 *
 * Every route needs `webhooks.manage` (checked per route, not with router.use, so a non-admin's
 * request for an `/outgoing` path still reaches the other router's own answer) and a room the
 * admin can see; DMs have no webhooks and answer 404 like unknown rooms.
 */

/** The key a path names: `:keyId` within the settings room. */
const KEY: SettingsItemKind<IncomingKeyListItem> = {
  param: 'keyId',
  find: findIncomingKey,
  path: incomingKeyPath,
  missing: 'No such webhook key.',
};

export function webhookRoutes(deps: WebDeps): RouteTable {
  const { db, config, box } = deps;
  const routes = routeTable();
  const admin = capability('webhooks.manage');

  const INCOMING_FORM = 'webhooks.incoming';
  const GITHUB_SECRET_FORM = 'webhooks.github-secret';

  async function tabPage(req: Request, res: Response, room: RoomSeat): Promise<void> {
    const { workspace } = seat(res);
    const incoming = takeForm(req, INCOMING_FORM);
    const outgoing = takeForm(req, OUTGOING_FORM);
    const [keys, hooks] = await Promise.all([
      listIncomingKeys(db, room.room.id, { page: pageParam(req.query.keys_page) }),
      listRoomOutgoingHooks(db, room.room.id, { page: pageParam(req.query.hooks_page) }),
    ]);
    await renderPage(req, res, (ctx) =>
      webhooksTabPage(ctx, {
        workspace,
        room: room.room,
        keys,
        hooks,
        values: { name: keptText(incoming, 'name') },
        errors: incoming?.errors ?? {},
        outgoing: {
          targetUrl: keptText(outgoing, 'target_url'),
          error: outgoing?.errors.target_url,
        },
      }),
    );
  }

  /** Pages that can show a raw key are never cached: Back must not bring it back. */
  async function keyPage(
    req: Request,
    res: Response,
    room: RoomSeat,
    key: IncomingKeyListItem,
    rawKey?: string,
  ): Promise<void> {
    const { workspace } = seat(res);
    noStore(res);
    const githubSecret = takeForm(req, GITHUB_SECRET_FORM);
    await renderPage(req, res, (ctx) =>
      incomingKeyPage(ctx, {
        workspace,
        room: room.room,
        key,
        publicUrl: config.PUBLIC_URL,
        rawKey,
        githubSecretError: githubSecret?.errors.github_secret,
      }),
    );
  }

  routes.get('/', admin, async (req, res) => {
    const room = await settingsRoom(db, req, res);
    await tabPage(req, res, room);
  });

  routes.post('/incoming', admin, async (req, res) => {
    const { workspace, member } = seat(res);
    const room = await settingsRoom(db, req, res);
    const body: unknown = req.body ?? {};
    const back = (errors: Record<string, string>) =>
      redirectWithForm(req, res, webhooksPath(workspace, room.room.id), INCOMING_FORM, {
        values: { name: postedText(body, 'name') },
        errors,
      });
    const parsed = createIncomingKeySchema.safeParse(body);
    if (!parsed.success) return back(fieldErrors(parsed.error));
    if (!room.joined) {
      // The key would be dead on arrival: posts resolve against the creator's seat in the room.
      return back({
        name: `Join ${roomLabel(room.room)} first: a key posts with your seat in the room.`,
      });
    }
    const { webhook } = await createIncomingKey(db, box, {
      workspaceId: workspace.id,
      roomId: room.room.id,
      name: parsed.data.name,
      createdBy: member.id,
    });
    flash(req, 'ok', `The key "${webhook.name}" is ready. Reveal it to copy its URL.`);
    res.redirect(303, incomingKeyPath(workspace, room.room.id, webhook.id));
  });

  routes.get('/incoming/:keyId', admin, async (req, res) => {
    const { room, item: key } = await settingsRoomItem(db, req, res, KEY);
    await keyPage(req, res, room, key);
  });

  // A POST (CSRF-checked) that answers the page with the key in it: the raw key is never in a
  // GET-able page, a link or the browser cache.
  routes.post('/incoming/:keyId/reveal', admin, async (req, res) => {
    const { room, item: key } = await settingsRoomItem(db, req, res, KEY);
    await keyPage(req, res, room, key, revealIncomingKey(box, key));
  });

  // Rotating asks first, like deleting: the GET is the question, the POST (its button) rotates.
  routes.get('/incoming/:keyId/rotate', admin, async (req, res) => {
    const { workspace } = seat(res);
    const { room, item: key } = await settingsRoomItem(db, req, res, KEY);
    await renderPage(req, res, (ctx) =>
      rotateKeyConfirmPage(ctx, { workspace, room: room.room, key }),
    );
  });

  routes.post('/incoming/:keyId/rotate', admin, async (req, res) => {
    const { room, item: key, here } = await settingsRoomItem(db, req, res, KEY);
    await rotateIncomingKey(db, box, room.room.id, key.id);
    // A redirect, not the page itself: reloading must not rotate a second time.
    flash(req, 'ok', 'The key was rotated: the old key no longer works. Reveal the new one.');
    res.redirect(303, here);
  });

  for (const [path, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    routes.post(`/incoming/:keyId/${path}`, admin, async (req, res) => {
      const { room, item: key, here } = await settingsRoomItem(db, req, res, KEY);
      await setIncomingKeyEnabled(db, room.room.id, key.id, enabled);
      flash(
        req,
        'ok',
        enabled
          ? `The key "${key.name}" is enabled again.`
          : `The key "${key.name}" is disabled: posts to it answer 404 until it is enabled.`,
      );
      res.redirect(303, here);
    });
  }

  // Issue 44: the GitHub signing secret `/wh/in/<key>/github` checks signatures with. Never
  // echoed back: a refused secret is kept out of the redirect, only its error is.
  routes.post('/incoming/:keyId/github-secret', admin, async (req, res) => {
    const { room, item: key, here } = await settingsRoomItem(db, req, res, KEY);
    const secret = postedText(req.body ?? {}, 'github_secret');
    try {
      await setIncomingKeyGithubSecret(db, box, room.room.id, key.id, secret);
    } catch (err) {
      const problem = err instanceof AppError ? err.options.fields?.github_secret : undefined;
      if (!problem) throw err;
      return redirectWithForm(req, res, here, GITHUB_SECRET_FORM, {
        values: {},
        errors: { github_secret: problem },
      });
    }
    flash(
      req,
      'ok',
      'The GitHub signing secret is set: deliveries must now carry a matching X-Hub-Signature-256.',
    );
    res.redirect(303, here);
  });

  routes.post('/incoming/:keyId/github-secret/remove', admin, async (req, res) => {
    const { room, item: key, here } = await settingsRoomItem(db, req, res, KEY);
    await setIncomingKeyGithubSecret(db, box, room.room.id, key.id, null);
    flash(req, 'ok', 'The GitHub signing secret is removed: deliveries are taken unsigned.');
    res.redirect(303, here);
  });

  // Deleting asks first: the GET is the question, the POST (its button) deletes.
  routes.get('/incoming/:keyId/delete', admin, async (req, res) => {
    const { workspace } = seat(res);
    const { room, item: key } = await settingsRoomItem(db, req, res, KEY);
    await renderPage(req, res, (ctx) =>
      deleteKeyConfirmPage(ctx, { workspace, room: room.room, key }),
    );
  });

  routes.post('/incoming/:keyId/delete', admin, async (req, res) => {
    const { workspace } = seat(res);
    const { room, item: key } = await settingsRoomItem(db, req, res, KEY);
    await deleteIncomingKey(db, room.room.id, key.id);
    flash(req, 'ok', `The key "${key.name}" is deleted. Posts to it answer 404.`);
    res.redirect(303, webhooksPath(workspace, room.room.id));
  });

  return routes;
}
