import { Router, type Request, type Response } from 'express';
import { AppError, SecretBox } from '@ferry/core';
import type { OutgoingWebhook, Workspace } from '@ferry/db';
import { loadSsrfSettings } from '@ferry/http';
import { createProducer } from '@ferry/queues';
import type { WebDeps } from '../deps.js';
import {
  createOutgoingHook,
  findDelivery,
  findOutgoingHook,
  listDeliveryLog,
  OUTGOING_TARGET_MAX,
  previousSecretLive,
  reEnableOutgoingHook,
  requestDrain,
  requestSendOnce,
  revealSigningSecret,
  rotateSigningSecret,
  targetUrlProblem,
  type DeliveryLogItem,
} from '../domain/outgoing-hooks.js';
import { roomLabel, type RoomSeat } from '../domain/rooms.js';
import { flash, pageContext, requireCapability, seat, send } from '../request-context.js';
import { html, type SafeHtml } from '../views/html.js';
import { csrfField, emptyState, field, layout, timeAgo, workspaceBase } from '../views/layout.js';
import { settingsRoom } from './room-settings.js';

/**
 * Outgoing hooks: the create POST of the room's Settings -> Webhooks tab (pages/webhooks.ts shows
 * the form and the list) and the hook page. Mounted at
 * /w/:wid/:slug/rooms/:roomId/settings/webhooks/outgoing. Admins only (`webhooks.manage`); every
 * state change is a CSRF-checked POST followed by a redirect, so a reload never repeats it.
 */

const NO_SUCH_HOOK = 'No such outgoing webhook.';

const tabPath = (workspace: Pick<Workspace, 'id' | 'slug'>, roomId: string): string =>
  `${workspaceBase(workspace)}/rooms/${roomId}/settings/webhooks`;

export const outgoingHookPath = (
  workspace: Pick<Workspace, 'id' | 'slug'>,
  roomId: string,
  hookId: string,
): string => `${tabPath(workspace, roomId)}/outgoing/${hookId}`;

const PAYLOAD_EXAMPLE = JSON.stringify(
  {
    event: 'message_created',
    room: { id: 'room_01jd…', name: 'general', workspace_id: 'wsp_01jd…' },
    message: {
      id: 'msg_01jd…',
      room_id: 'room_01jd…',
      body: 'Deploy finished **green**',
      sender: { type: 'member', id: 'mem_01jd…', name: 'Ada Lovelace' },
      created_at: '2026-11-22T09:30:00.000Z',
    },
  },
  null,
  2,
);

const RUBY_SNIPPET = `require 'openssl'
require 'rack/utils'

# In a Rack/Rails action. SECRET is the signing secret above, whsec_ prefix included.
raw_body = request.body.read
expected = OpenSSL::HMAC.hexdigest('SHA256', SECRET, raw_body)
given = request.get_header('HTTP_X_SERVICE_SIGNATURE').to_s.delete_prefix('sha256=')
unless Rack::Utils.secure_compare(expected, given)
  head :unauthorized and return
end
payload = JSON.parse(raw_body)`;

const NODE_SNIPPET = `import { createHmac, timingSafeEqual } from 'node:crypto';

// rawBody: the request body as received (a Buffer), before any JSON parsing.
function verify(rawBody, header, secret) {
  const expected = Buffer.from(
    createHmac('sha256', secret).update(rawBody).digest('hex'),
  );
  const given = Buffer.from(String(header ?? '').replace(/^sha256=/, ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// verify(rawBody, req.headers['x-service-signature'], process.env.FERRY_WEBHOOK_SECRET)`;

const STATE_BADGE: Record<OutgoingWebhook['state'], string> = { enabled: 'ok', disabled: 'warn' };
const DELIVERY_BADGE: Record<DeliveryLogItem['status'], string> = {
  pending: 'warn',
  held: 'warn',
  succeeded: 'ok',
  failed: 'danger',
};

function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
}

function maskedSecret(): string {
  return 'whsec_••••••••••••••••••••••••';
}

function attemptRows(d: DeliveryLogItem): SafeHtml {
  if (!d.attempts_log.length) return html`<p class="muted">No attempt yet.</p>`;
  return html`<table class="attempts">
    <thead>
      <tr>
        <th>Time</th>
        <th>Status</th>
        <th>Duration</th>
        <th>Answer (first 1 KB)</th>
        <th>Error</th>
      </tr>
    </thead>
    <tbody>
      ${d.attempts_log.map(
        (a) =>
          html`<tr data-testid="attempt">
            <td>${timeAgo(a.attempted_at)}</td>
            <td>
              ${a.status_code === null ? html`<span class="muted">none</span>` : a.status_code}
            </td>
            <td>${a.duration_ms} ms</td>
            <td><code class="excerpt">${a.response_excerpt ?? ''}</code></td>
            <td>${a.error ?? ''}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function outgoingHookRoutes(deps: WebDeps): Router {
  const { db, config } = deps;
  const box = new SecretBox(config.APP_SECRET);
  // Parsed once per app: ALLOW_PRIVATE_WEBHOOK_TARGETS (dev and tests only).
  const ssrf = loadSsrfSettings(process.env);
  // Jobs for webhooks-out ('Send again', test events, re-enable wake-ups). The connection is the
  // app's own; a Queue never closes a connection it was given.
  const producer = createProducer({
    connection: deps.redis,
    prefix: config.REDIS_PREFIX,
    logger: deps.logger,
  });
  const router = Router({ mergeParams: true });
  const admin = requireCapability('webhooks.manage');

  async function findHook(req: Request, room: RoomSeat): Promise<OutgoingWebhook> {
    const { hookId } = req.params as { hookId: string };
    const hook = await findOutgoingHook(db, room.room.id, hookId);
    if (!hook) throw new AppError('not_found', NO_SUCH_HOOK);
    return hook;
  }

  function crumbs(workspace: Workspace, room: RoomSeat): SafeHtml {
    const roomUrl = `${workspaceBase(workspace)}/rooms/${room.room.id}`;
    return html`<p class="crumbs">
      <a href="${roomUrl}">← ${roomLabel(room.room)}</a> ·
      <a href="${tabPath(workspace, room.room.id)}">Webhooks</a>
    </p>`;
  }

  /** The create form again with its error (a refused URL), answered to the tab's POST. */
  function createFormPage(
    req: Request,
    res: Response,
    room: RoomSeat,
    targetUrl: string,
    error: string,
  ): void {
    const { workspace } = seat(res);
    const ctx = pageContext(req, res);
    send(
      res,
      layout(ctx, {
        title: `New outgoing webhook · ${roomLabel(room.room)}`,
        section: 'rooms',
        body: html`${crumbs(workspace, room)}
          <div class="card">
            <h1>New outgoing webhook</h1>
            <p class="muted">
              Every message a member posts in ${roomLabel(room.room)} is sent, signed, to this URL.
            </p>
            <form
              method="post"
              action="${tabPath(workspace, room.room.id)}/outgoing"
              novalidate
              class="webhook-create"
            >
              ${csrfField(ctx)}
              ${field({
                label: 'Target URL',
                name: 'target_url',
                type: 'url',
                value: targetUrl,
                error,
                required: true,
                maxlength: OUTGOING_TARGET_MAX,
                hint: 'An https URL you control; it receives a signed POST for every message.',
              })}
              <button type="submit">Create hook</button>
            </form>
          </div>`,
      }),
      422,
    );
  }

  async function hookPage(
    req: Request,
    res: Response,
    room: RoomSeat,
    hook: OutgoingWebhook,
    rawSecret?: string,
  ): Promise<void> {
    const { workspace } = seat(res);
    const here = outgoingHookPath(workspace, room.room.id, hook.id);
    const deliveries = await listDeliveryLog(db, hook.id);
    const ctx = pageContext(req, res);
    const csrf = csrfField(ctx);
    const action = (path: string, label: string, cls = 'secondary'): SafeHtml =>
      html`<form method="post" action="${here}/${path}" class="inline">
        ${csrf}<button type="submit" class="${cls}">${label}</button>
      </form>`;
    const rotating = previousSecretLive(hook);
    noStore(res);
    send(
      res,
      layout(ctx, {
        title: `Outgoing webhook · ${roomLabel(room.room)}`,
        section: 'rooms',
        scripts: rawSecret ? ['/assets/copy.js'] : [],
        body: html`${crumbs(workspace, room)}
          <div class="card outgoing-hook">
            <h1>
              Outgoing webhook
              <span class="badge ${STATE_BADGE[hook.state]}" data-testid="hook-state"
                >${hook.state}</span
              >
            </h1>
            <dl class="kv">
              <dt>Target URL</dt>
              <dd><code data-testid="target-url">${hook.target_url}</code></dd>
              <dt>State</dt>
              <dd>
                ${hook.state}${
                  hook.state === 'disabled' && hook.disabled_reason
                    ? html` <span class="muted">(${hook.disabled_reason})</span>`
                    : ''
                }
              </dd>
              <dt>Consecutive failures</dt>
              <dd data-testid="consecutive-failures">${hook.consecutive_failures}</dd>
              <dt>Signing secret</dt>
              <dd>
                <code class="secret" id="signing-secret" data-testid="signing-secret"
                  >${rawSecret ?? maskedSecret()}</code
                >
                ${
                  rawSecret
                    ? html`<button
                        type="button"
                        class="secondary small"
                        data-copy="#signing-secret"
                      >
                        Copy
                      </button>`
                    : action('reveal', 'Reveal', 'secondary small')
                }
                ${
                  rotating && hook.previous_secret_expires_at
                    ? html`<p class="hint">
                        Rotated: the previous secret also signs until
                        ${hook.previous_secret_expires_at.toISOString()} (a second
                        <code>webhook-signature</code> entry and
                        <code>X-Service-Signature-Previous</code>).
                      </p>`
                    : ''
                }
              </dd>
              <dt>Created</dt>
              <dd>${timeAgo(hook.created_at)}</dd>
            </dl>
            <div class="button-row">
              ${action('rotate', 'Rotate secret')} ${action('test', 'Send test event')}
              ${hook.state === 'disabled' ? action('enable', 'Re-enable', 'primary') : ''}
            </div>
          </div>
          <section class="card" aria-labelledby="payload">
            <h2 id="payload">Payload</h2>
            <p class="muted">
              A <code>POST</code> with <code>Content-Type: application/json</code> for every message
              a member posts (never for messages from webhooks, agents or the system). Headers:
              <code>X-Service-Signature: sha256=&lt;hex HMAC-SHA256 of the raw body&gt;</code> keyed
              with the secret as shown; <code>X-Service-Event: message_created</code>; and Standard
              Webhooks' <code>webhook-id</code> (the same on every retry: dedupe on it),
              <code>webhook-timestamp</code> and <code>webhook-signature</code>. Answer 2xx within
              10 s; anything else is retried (5 s, 5 min, 30 min, 2 h, 5 h, 10 h). 20 failures in a
              row, or a 410, disable the hook.
            </p>
            <pre data-testid="payload-example"><code>${PAYLOAD_EXAMPLE}</code></pre>
            <h2>Verify the signature (Ruby)</h2>
            <pre data-testid="ruby-snippet"><code>${RUBY_SNIPPET}</code></pre>
            <h2>Verify the signature (Node)</h2>
            <pre data-testid="node-snippet"><code>${NODE_SNIPPET}</code></pre>
          </section>
          <section class="card" aria-labelledby="deliveries">
            <h2 id="deliveries">Deliveries</h2>
            ${
              deliveries.length
                ? html`<ol class="delivery-log">
                    ${deliveries.map(
                      (d) =>
                        html`<li class="delivery" data-testid="delivery" id="${d.id}">
                          <div class="delivery-head">
                            <span class="badge ${DELIVERY_BADGE[d.status]}">${d.status}</span>
                            <strong
                              >${d.event === 'test' ? 'Test event' : 'message_created'}</strong
                            >
                            ${d.message_id ? html`<code>${d.message_id}</code>` : ''}
                            <span class="muted">webhook-id <code>${d.id}</code></span>
                            ${
                              d.status === 'pending' && d.next_attempt_at
                                ? html`<span class="muted"
                                    >next try ${timeAgo(d.next_attempt_at)}</span
                                  >`
                                : ''
                            }
                            <form
                              method="post"
                              action="${here}/deliveries/${d.id}/resend"
                              class="inline"
                            >
                              ${csrf}<button type="submit" class="secondary small">
                                Send again
                              </button>
                            </form>
                          </div>
                          ${attemptRows(d)}
                        </li>`,
                    )}
                  </ol>`
                : emptyState(
                    'No deliveries yet',
                    'They appear here when a member posts in the room, or send a test event.',
                  )
            }
          </section>`,
      }),
    );
  }

  router.post('/', admin, async (req, res) => {
    const { workspace, member } = seat(res);
    const room = await settingsRoom(db, req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const targetUrl = typeof body.target_url === 'string' ? body.target_url.trim() : '';
    const problem = await targetUrlProblem(targetUrl, ssrf);
    if (problem) return createFormPage(req, res, room, targetUrl, problem);
    const { hook } = await createOutgoingHook(db, box, {
      workspaceId: workspace.id,
      roomId: room.room.id,
      targetUrl,
      createdBy: member.id,
    });
    flash(req, 'ok', 'The hook is ready. Reveal its signing secret to set up your receiver.');
    res.redirect(303, outgoingHookPath(workspace, room.room.id, hook.id));
  });

  router.get('/:hookId', admin, async (req, res) => {
    const room = await settingsRoom(db, req, res);
    await hookPage(req, res, room, await findHook(req, room));
  });

  // A POST that answers the page with the secret in it: never in a GET-able page or the cache.
  router.post('/:hookId/reveal', admin, async (req, res) => {
    const room = await settingsRoom(db, req, res);
    const hook = await findHook(req, room);
    await hookPage(req, res, room, hook, revealSigningSecret(box, hook));
  });

  router.post('/:hookId/rotate', admin, async (req, res) => {
    const { workspace } = seat(res);
    const room = await settingsRoom(db, req, res);
    const hook = await findHook(req, room);
    await rotateSigningSecret(db, box, hook);
    flash(
      req,
      'ok',
      'New signing secret. The previous one keeps signing for 24 hours: update your receiver.',
    );
    res.redirect(303, outgoingHookPath(workspace, room.room.id, hook.id));
  });

  router.post('/:hookId/enable', admin, async (req, res) => {
    const { workspace } = seat(res);
    const room = await settingsRoom(db, req, res);
    const hook = await findHook(req, room);
    const released = await reEnableOutgoingHook(db, hook);
    await requestDrain(producer, hook.id);
    flash(
      req,
      'ok',
      released
        ? `The hook is enabled again; ${released} held ${released === 1 ? 'delivery goes' : 'deliveries go'} out in message order.`
        : 'The hook is enabled again.',
    );
    res.redirect(303, outgoingHookPath(workspace, room.room.id, hook.id));
  });

  router.post('/:hookId/test', admin, async (req, res) => {
    const { workspace } = seat(res);
    const room = await settingsRoom(db, req, res);
    const hook = await findHook(req, room);
    await requestSendOnce(producer, hook.id);
    flash(req, 'ok', 'A test event is on its way. Reload to see it in the log.');
    res.redirect(303, outgoingHookPath(workspace, room.room.id, hook.id));
  });

  router.post('/:hookId/deliveries/:deliveryId/resend', admin, async (req, res) => {
    const { workspace } = seat(res);
    const room = await settingsRoom(db, req, res);
    const hook = await findHook(req, room);
    const { deliveryId } = req.params as { deliveryId: string };
    const delivery = await findDelivery(db, hook.id, deliveryId);
    if (!delivery) throw new AppError('not_found', 'No such delivery.');
    await requestSendOnce(producer, hook.id, delivery.id);
    flash(req, 'ok', 'Sent again with the same webhook-id. Reload to see the attempt.');
    res.redirect(303, outgoingHookPath(workspace, room.room.id, hook.id));
  });

  return router;
}
