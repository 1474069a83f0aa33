import type { OutgoingWebhook, Room, Workspace } from '@ferry/db';
import { roomLabel, type DeliveryLogItem } from '@ferry/workspace';
import { confirmLink, confirmPage } from '../../shared/confirm.js';
import { COPY_SCRIPT, copyButton, copyableSnippet } from '../../shared/copy.js';
import { exactTime, optional, plural, timeAgo } from '../../shared/format.js';
import { pager, pastLastPage } from '../../shared/pager.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, emptyState, layout, scrollBox, type PageContext } from '../../shared/layout.js';
import { outgoingHookPath, postButton, settingsCrumbs, STATE_BADGE } from './views.js';

/** An outgoing hook's page (secret, payload documentation, delivery log) and its create form. */

type WorkspaceRef = Pick<Workspace, 'id' | 'slug'>;
type RoomRef = Pick<Room, 'id' | 'kind' | 'name'>;

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

const DELIVERY_BADGE: Record<DeliveryLogItem['status'], string> = {
  pending: 'warn',
  held: 'warn',
  succeeded: 'ok',
  failed: 'danger',
};

const MASKED_SECRET = 'whsec_••••••••••••••••••••••••';

function attemptRows(d: DeliveryLogItem): SafeHtml {
  if (!d.attempts_log.length) return html`<p class="muted">No attempt yet.</p>`;
  // On a phone the table scrolls sideways in its own box, reachable by keyboard too.
  return html`${scrollBox(
    'Attempts',
    html`
      <table class="attempts">
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
                <td>${optional(a.status_code, undefined, 'none')}</td>
                <td>${a.duration_ms} ms</td>
                <td><code class="excerpt">${a.response_excerpt ?? ''}</code></td>
                <td>${a.error ?? ''}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    `,
  )}`;
}

/** When a delivery goes out next: the scheduled time (relative and exact), or why it waits. */
function nextTry(d: DeliveryLogItem): SafeHtml | '' {
  if (d.status === 'held') {
    return html`<span class="muted" data-testid="next-try"
      >held until the hook is re-enabled</span
    >`;
  }
  if (d.status !== 'pending' || !d.next_attempt_at) return '';
  return html`<span class="muted" data-testid="next-try"
    >next try ${exactTime(d.next_attempt_at)}</span
  >`;
}

/** What a delivery carried: the message's author and start, or what a test event is. */
function deliveredMessage(d: DeliveryLogItem): SafeHtml | '' {
  if (d.event === 'test') return '';
  if (d.message_excerpt === null) {
    return html`<p class="delivery-message muted">The message is no longer in the room.</p>`;
  }
  return html`<p class="delivery-message">
    <span class="delivery-author">${d.message_author ?? ''}:</span>
    <span class="delivery-excerpt">${d.message_excerpt}</span>
  </p>`;
}

function deliveryLog(
  here: string,
  csrf: SafeHtml,
  data: Pick<OutgoingHookData, 'deliveries' | 'page' | 'pages' | 'total'>,
): SafeHtml {
  const { deliveries, page, pages } = data;
  if (!deliveries.length) {
    return page > 1
      ? html`${emptyState(`There is no page ${page}`, pastLastPage({ path: here, page, pages }))}
        ${pager({ path: here, page, pages })}`
      : emptyState(
          'No deliveries yet',
          'They appear here when a member posts in the room, or send a test event.',
        );
  }
  return html`<p class="muted" data-testid="delivery-count">
      ${plural(data.total, 'delivery', 'deliveries')}, newest first
    </p>
    <ol class="delivery-log">
      ${deliveries.map(
        (d) =>
          html`<li class="delivery" data-testid="delivery" id="${d.id}">
            <div class="delivery-head">
              <span class="badge ${DELIVERY_BADGE[d.status]}">${d.status}</span>
              <strong>${d.event === 'test' ? 'Test event' : 'message_created'}</strong>
              ${d.message_id ? html`<code>${d.message_id}</code>` : ''}
              <span class="muted">webhook-id <code>${d.id}</code></span>
              ${nextTry(d)}
              ${postButton(csrf, `${here}/deliveries/${d.id}/resend`, 'Send again', 'secondary small')}
            </div>
            ${deliveredMessage(d)} ${attemptRows(d)}
          </li>`,
      )}
    </ol>
    ${pager({ path: here, page, pages })}`;
}

const PAYLOAD_DOCS = html`<section class="card" aria-labelledby="payload">
  <h2 id="payload">Payload</h2>
  <p class="muted">
    A <code>POST</code> with <code>Content-Type: application/json</code> for every message a member
    posts (never for messages from webhooks, agents or the system). Headers:
    <code>X-Service-Signature: sha256=&lt;hex HMAC-SHA256 of the raw body&gt;</code> keyed with the
    secret as shown; <code>X-Service-Event: message_created</code>; and Standard Webhooks'
    <code>webhook-id</code> (the same on every retry: dedupe on it),
    <code>webhook-timestamp</code> and <code>webhook-signature</code>. Answer 2xx within 10 s;
    anything else is retried (5 s, 5 min, 30 min, 2 h, 5 h, 10 h). 20 failures in a row, or a 410,
    disable the hook.
  </p>
  ${copyableSnippet({
    id: 'payload-example',
    what: 'the example payload',
    text: PAYLOAD_EXAMPLE,
    testId: 'payload-example',
  })}
  <h2>Verify the signature (Ruby)</h2>
  ${copyableSnippet({
    id: 'ruby-snippet',
    what: 'the Ruby snippet',
    text: RUBY_SNIPPET,
    testId: 'ruby-snippet',
  })}
  <h2>Verify the signature (Node)</h2>
  ${copyableSnippet({
    id: 'node-snippet',
    what: 'the Node snippet',
    text: NODE_SNIPPET,
    testId: 'node-snippet',
  })}
</section>`;

export interface OutgoingHookData {
  workspace: WorkspaceRef;
  room: RoomRef;
  hook: OutgoingWebhook;
  /** The previous secret still signs (a rotation less than a day old). */
  rotating: boolean;
  /** One page of the log, newest first. */
  deliveries: DeliveryLogItem[];
  page: number;
  pages: number;
  /** Every delivery of the hook. */
  total: number;
  /** The raw signing secret, only in the answer to Reveal. */
  rawSecret?: string | undefined;
}

export function outgoingHookPage(ctx: PageContext, data: OutgoingHookData): SafeHtml {
  const { workspace, room, hook, rawSecret } = data;
  const here = outgoingHookPath(workspace, room.id, hook.id);
  const csrf = csrfField(ctx);
  const action = (path: string, label: string, cls?: string): SafeHtml =>
    postButton(csrf, `${here}/${path}`, label, cls);
  return layout(ctx, {
    title: `Outgoing webhook · ${roomLabel(room)}`,
    section: 'rooms',
    scripts: [COPY_SCRIPT],
    body: html`${settingsCrumbs(workspace, room, { webhooksLink: true })}
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
              >${rawSecret ?? MASKED_SECRET}</code
            >
            ${
              rawSecret
                ? copyButton('signing-secret', 'the signing secret')
                : action('reveal', 'Reveal', 'secondary small')
            }
            ${
              data.rotating && hook.previous_secret_expires_at
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
          ${hook.state === 'disabled' ? action('enable', 'Re-enable', 'primary') : action('disable', 'Disable')}
          ${confirmLink(`${here}/delete`, 'Delete hook')}
        </div>
      </div>
      ${PAYLOAD_DOCS}
      <section class="card" aria-labelledby="deliveries">
        <h2 id="deliveries">Deliveries</h2>
        ${deliveryLog(here, csrf, data)}
      </section>`,
  });
}

/** "Delete the hook to …?": asked before the hook and its delivery log go. */
export function deleteHookConfirmPage(
  ctx: PageContext,
  data: { workspace: WorkspaceRef; room: RoomRef; hook: OutgoingWebhook; cancelHref: string },
): SafeHtml {
  const { workspace, room, hook } = data;
  return confirmPage(ctx, {
    question: `Delete the hook to ${hook.target_url}?`,
    section: 'rooms',
    crumbs: settingsCrumbs(workspace, room, { webhooksLink: true }),
    consequences: html`Messages in ${roomLabel(room)} stop going to this URL, including any not yet
    delivered, and its delivery log is deleted. This cannot be undone; to pause deliveries instead,
    disable the hook.`,
    action: `${outgoingHookPath(workspace, room.id, hook.id)}/delete`,
    confirmLabel: 'Delete hook',
    cancelHref: data.cancelHref,
  });
}
