import { Router, type Request, type Response } from 'express';
import { AppError, SecretBox } from '@ferry/core';
import type { Workspace } from '@ferry/db';
import { fieldErrors } from '@ferry/http';
import type { WebDeps } from '../deps.js';
import {
  createIncomingKey,
  createIncomingKeySchema,
  deleteIncomingKey,
  findIncomingKey,
  INCOMING_KEY_NAME_MAX,
  listIncomingKeys,
  listRoomOutgoingHooks,
  revealIncomingKey,
  rotateIncomingKey,
  setIncomingKeyEnabled,
  type IncomingKeyListItem,
  type IncomingKeyState,
  type OutgoingHookListItem,
} from '../domain/incoming-webhooks.js';
import { roomLabel, type RoomSeat } from '../domain/rooms.js';
import { flash, pageContext, requireCapability, seat, send } from '../request-context.js';
import { html, type SafeHtml } from '../views/html.js';
import { csrfField, emptyState, field, layout, timeAgo, workspaceBase } from '../views/layout.js';
import { settingsRoom } from './room-settings.js';

/**
 * The room's Settings -> Webhooks tab (incoming keys and the outgoing hooks list) and the incoming
 * key page. Mounted at /w/:wid/:slug/rooms/:roomId/settings/webhooks. Outgoing hooks are created
 * and managed by pages/outgoing-hooks.ts under `.../outgoing`; this router only lists them and
 * shows the create form, and answers nothing under `/outgoing` so that router gets those paths.
 *
 * Every route needs `webhooks.manage` (checked per route, not with router.use, so a non-admin's
 * request for an `/outgoing` path still reaches the other router's own answer) and a room the
 * admin can see; DMs have no webhooks and answer 404 like unknown rooms.
 */

export const webhooksPath = (workspace: Pick<Workspace, 'id' | 'slug'>, roomId: string): string =>
  `${workspaceBase(workspace)}/rooms/${roomId}/settings/webhooks`;

const NO_SUCH_KEY = 'No such webhook key.';

const STATE_BADGE: Record<IncomingKeyState | OutgoingHookListItem['state'], string> = {
  enabled: 'ok',
  disabled: 'warn',
  deleted: 'danger',
};

/** Pages that can show a raw key are never cached: Back must not bring it back. */
function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
}

function masked(prefix: string): string {
  return `${prefix}…`;
}

/** Single-quoted for bash: a key is base64url, but quote anyway so the example is always safe. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The ready-made example: a real command that posts one message when the key is revealed. */
export function curlExample(ingestUrl: string): string {
  return [
    `curl -sS -X POST ${shellQuote(ingestUrl)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"body": "Hello from **curl**", "sender": "Deploy bot"}'`,
  ].join('\n');
}

export function webhookRoutes(deps: WebDeps): Router {
  const { db, config } = deps;
  const box = new SecretBox(config.APP_SECRET);
  const router = Router({ mergeParams: true });
  const admin = requireCapability('webhooks.manage');

  async function findKey(req: Request, room: RoomSeat): Promise<IncomingKeyListItem> {
    const { keyId } = req.params as { keyId: string };
    const key = await findIncomingKey(db, room.room.id, keyId);
    if (!key) throw new AppError('not_found', NO_SUCH_KEY);
    return key;
  }

  function crumbs(workspace: Workspace, room: RoomSeat, extra?: SafeHtml): SafeHtml {
    const roomUrl = `${workspaceBase(workspace)}/rooms/${room.room.id}`;
    return html`<p class="crumbs">
      <a href="${roomUrl}">← ${roomLabel(room.room)}</a>${extra ? html` · ${extra}` : ''}
    </p>`;
  }

  async function tabPage(
    req: Request,
    res: Response,
    room: RoomSeat,
    values: { name?: string } = {},
    errors: Record<string, string> = {},
    status = 200,
  ): Promise<void> {
    const { workspace } = seat(res);
    const base = webhooksPath(workspace, room.room.id);
    const [keys, hooks] = await Promise.all([
      listIncomingKeys(db, room.room.id),
      listRoomOutgoingHooks(db, room.room.id),
    ]);
    const ctx = pageContext(req, res);
    const csrf = csrfField(ctx);
    const label = roomLabel(room.room);
    send(
      res,
      layout(ctx, {
        title: `Webhooks · ${label}`,
        section: 'rooms',
        body: html`${crumbs(workspace, room)}
          <div class="page-head">
            <h1>Settings · Webhooks</h1>
            <span class="muted">${label}</span>
          </div>
          <section class="card webhooks-section" aria-labelledby="incoming-keys">
            <h2 id="incoming-keys">Incoming webhooks</h2>
            <p class="muted">
              Other systems post messages into ${label} with
              <code>POST /wh/in/&lt;key&gt;</code>. The key is the whole credential: treat its URL
              like a password. A key posts with its creator's seat, so it stops working if they
              leave the room or the workspace.
            </p>
            ${
              keys.length
                ? html`<table class="webhooks">
                    <thead>
                      <tr>
                        <th>Name</th>
                        <th>Key</th>
                        <th>State</th>
                        <th>Created by</th>
                        <th>Created</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${keys.map(
                        (k) =>
                          html`<tr>
                            <td><a href="${base}/incoming/${k.id}">${k.name}</a></td>
                            <td><code>${masked(k.key_prefix)}</code></td>
                            <td><span class="badge ${STATE_BADGE[k.state]}">${k.state}</span></td>
                            <td>${k.created_by_name}</td>
                            <td>${timeAgo(k.created_at)}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>`
                : emptyState('No incoming keys yet', 'Create one to let another system post here.')
            }
            <form method="post" action="${base}/incoming" novalidate class="webhook-create">
              ${csrf}
              ${field({
                label: 'Key name',
                name: 'name',
                value: values.name,
                error: errors.name,
                required: true,
                maxlength: INCOMING_KEY_NAME_MAX,
                hint: 'Shown as the sender of its messages unless a post names one, e.g. "Deploy bot".',
              })}
              <button type="submit">Create key</button>
            </form>
          </section>
          <section class="card webhooks-section" aria-labelledby="outgoing-hooks">
            <h2 id="outgoing-hooks">Outgoing webhooks</h2>
            <p class="muted">
              Every message a member posts in ${label} is sent, signed, to each enabled hook's URL.
            </p>
            ${
              hooks.length
                ? html`<table class="webhooks">
                    <thead>
                      <tr>
                        <th>Target URL</th>
                        <th>State</th>
                        <th>Consecutive failures</th>
                        <th>Created</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${hooks.map(
                        (h) =>
                          html`<tr>
                            <td>
                              <a href="${base}/outgoing/${h.id}"><code>${h.target_url}</code></a>
                            </td>
                            <td><span class="badge ${STATE_BADGE[h.state]}">${h.state}</span></td>
                            <td>${h.consecutive_failures}</td>
                            <td>${timeAgo(h.created_at)}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>`
                : emptyState('No outgoing hooks yet', "Create one to receive this room's messages.")
            }
            <form method="post" action="${base}/outgoing" novalidate class="webhook-create">
              ${csrf}
              ${field({
                label: 'Target URL',
                name: 'target_url',
                type: 'url',
                required: true,
                hint: 'An https URL you control; it receives a signed POST for every message.',
              })}
              <button type="submit">Create hook</button>
            </form>
          </section>`,
      }),
      status,
    );
  }

  function keyPage(
    req: Request,
    res: Response,
    room: RoomSeat,
    key: IncomingKeyListItem,
    rawKey?: string,
  ): void {
    const { workspace } = seat(res);
    const base = webhooksPath(workspace, room.room.id);
    const here = `${base}/incoming/${key.id}`;
    const ctx = pageContext(req, res);
    const csrf = csrfField(ctx);
    const shownKey = rawKey ?? masked(key.key_prefix);
    const ingestUrl = `${config.PUBLIC_URL}/wh/in/${shownKey}`;
    const action = (path: string, label: string, cls = 'secondary'): SafeHtml =>
      html`<form method="post" action="${here}/${path}" class="inline">
        ${csrf}<button type="submit" class="${cls}">${label}</button>
      </form>`;
    noStore(res);
    send(
      res,
      layout(ctx, {
        title: `${key.name} · Webhooks`,
        section: 'rooms',
        scripts: rawKey ? ['/assets/copy.js'] : [],
        body: html`${crumbs(workspace, room, html`<a href="${base}">Webhooks</a>`)}
          <div class="card">
            <h1>${key.name} <span class="badge ${STATE_BADGE[key.state]}">${key.state}</span></h1>
            <dl class="kv">
              <dt>Key</dt>
              <dd>
                <code class="secret" id="incoming-key" data-testid="incoming-key">${shownKey}</code>
                ${
                  rawKey
                    ? html`<button type="button" class="secondary small" data-copy="#incoming-key">
                        Copy
                      </button>`
                    : action('reveal', 'Reveal', 'secondary small')
                }
              </dd>
              <dt>Ingest URL</dt>
              <dd><code data-testid="ingest-url">${ingestUrl}</code></dd>
              <dt>Posts into</dt>
              <dd>${roomLabel(room.room)}</dd>
              <dt>Created by</dt>
              <dd>${key.created_by_name}, ${timeAgo(key.created_at)}</dd>
              ${
                key.rotated_at
                  ? html`<dt>Rotated</dt>
                      <dd>${timeAgo(key.rotated_at)}</dd>`
                  : ''
              }
            </dl>
            <h2>Try it</h2>
            ${
              rawKey
                ? ''
                : html`<p class="muted">Reveal the key to get a command you can run as is.</p>`
            }
            <pre
              class="curl"
              data-testid="curl-example"
            ><code>${curlExample(ingestUrl)}</code></pre>
            <p class="muted">
              JSON fields: <code>body</code> (or <code>text</code>), optional
              <code>sender</code> (or <code>name</code>, <code>username</code>),
              <code>room</code> (a room id the creator has joined), <code>idempotency_key</code> (or
              the <code>Idempotency-Key</code> header). Answers 201 <code>{"message_id"}</code>, 200
              on a replay of the same idempotency key.
            </p>
            <div class="button-row">
              ${action('rotate', 'Rotate')}
              ${
                key.state === 'disabled' ? action('enable', 'Enable') : action('disable', 'Disable')
              }
              ${action('delete', 'Delete', 'danger')}
            </div>
          </div>`,
      }),
    );
  }

  router.get('/', admin, async (req, res) => {
    const room = await settingsRoom(db, req, res);
    await tabPage(req, res, room);
  });

  router.post('/incoming', admin, async (req, res) => {
    const { workspace, member } = seat(res);
    const room = await settingsRoom(db, req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name : '';
    const parsed = createIncomingKeySchema.safeParse(body);
    if (!parsed.success) return tabPage(req, res, room, { name }, fieldErrors(parsed.error), 422);
    if (!room.joined) {
      // The key would be dead on arrival: posts resolve against the creator's seat in the room.
      const problem = `Join ${roomLabel(room.room)} first: a key posts with your seat in the room.`;
      return tabPage(req, res, room, { name }, { name: problem }, 422);
    }
    const { webhook } = await createIncomingKey(db, box, {
      workspaceId: workspace.id,
      roomId: room.room.id,
      name: parsed.data.name,
      createdBy: member.id,
    });
    flash(req, 'ok', `The key "${webhook.name}" is ready. Reveal it to copy its URL.`);
    res.redirect(303, `${webhooksPath(workspace, room.room.id)}/incoming/${webhook.id}`);
  });

  router.get('/incoming/:keyId', admin, async (req, res) => {
    const room = await settingsRoom(db, req, res);
    keyPage(req, res, room, await findKey(req, room));
  });

  // A POST (CSRF-checked) that answers the page with the key in it: the raw key is never in a
  // GET-able page, a link or the browser cache.
  router.post('/incoming/:keyId/reveal', admin, async (req, res) => {
    const room = await settingsRoom(db, req, res);
    const key = await findKey(req, room);
    keyPage(req, res, room, key, revealIncomingKey(box, key));
  });

  router.post('/incoming/:keyId/rotate', admin, async (req, res) => {
    const room = await settingsRoom(db, req, res);
    const key = await findKey(req, room);
    const { workspace } = seat(res);
    await rotateIncomingKey(db, box, room.room.id, key.id);
    // A redirect, not the page itself: reloading must not rotate a second time.
    flash(req, 'ok', 'The key was rotated: the old key no longer works. Reveal the new one.');
    res.redirect(303, `${webhooksPath(workspace, room.room.id)}/incoming/${key.id}`);
  });

  for (const [path, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    router.post(`/incoming/:keyId/${path}`, admin, async (req, res) => {
      const { workspace } = seat(res);
      const room = await settingsRoom(db, req, res);
      const key = await findKey(req, room);
      await setIncomingKeyEnabled(db, room.room.id, key.id, enabled);
      flash(
        req,
        'ok',
        enabled
          ? `The key "${key.name}" is enabled again.`
          : `The key "${key.name}" is disabled: posts to it answer 404 until it is enabled.`,
      );
      res.redirect(303, `${webhooksPath(workspace, room.room.id)}/incoming/${key.id}`);
    });
  }

  router.post('/incoming/:keyId/delete', admin, async (req, res) => {
    const { workspace } = seat(res);
    const room = await settingsRoom(db, req, res);
    const key = await findKey(req, room);
    await deleteIncomingKey(db, room.room.id, key.id);
    flash(req, 'ok', `The key "${key.name}" is deleted. Posts to it answer 404.`);
    res.redirect(303, webhooksPath(workspace, room.room.id));
  });

  return router;
}
