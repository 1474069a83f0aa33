import type { Room, Workspace } from '@ferry/db';
import {
  INCOMING_KEY_NAME_MAX,
  OUTGOING_TARGET_MAX,
  roomLabel,
  type IncomingKeyListItem,
  type IncomingKeyState,
  type OutgoingHookListItem,
  type ListPage,
} from '@ferry/workspace';
import { confirmLink, confirmPage } from '../../shared/confirm.js';
import { COPY_SCRIPT, copyButton } from '../../shared/copy.js';
import { masked, timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { listFooter } from '../../shared/pager.js';
import { senderUrlsSection } from './sender-urls.js';
import {
  csrfField,
  emptyState,
  field,
  layout,
  scrollBox,
  workspaceBase,
  type PageContext,
} from '../../shared/layout.js';

/**
 * The room's Settings -> Webhooks tab (incoming keys, the outgoing hooks list and both create
 * forms) and the incoming key page, plus what the outgoing hook pages share with them (paths,
 * crumbs, state badges, the one-button forms).
 */

type WorkspaceRef = Pick<Workspace, 'id' | 'slug'>;
type RoomRef = Pick<Room, 'id' | 'kind' | 'name'>;

export const webhooksPath = (workspace: WorkspaceRef, roomId: string): string =>
  `${workspaceBase(workspace)}/rooms/${roomId}/settings/webhooks`;

export const incomingKeyPath = (workspace: WorkspaceRef, roomId: string, keyId: string): string =>
  `${webhooksPath(workspace, roomId)}/incoming/${keyId}`;

export const outgoingHookPath = (workspace: WorkspaceRef, roomId: string, hookId: string): string =>
  `${webhooksPath(workspace, roomId)}/outgoing/${hookId}`;

export const STATE_BADGE: Record<IncomingKeyState | OutgoingHookListItem['state'], string> = {
  enabled: 'ok',
  disabled: 'warn',
  deleted: 'danger',
};

/** `← #room`, and `· Webhooks` on the pages below the tab. */
export function settingsCrumbs(
  workspace: WorkspaceRef,
  room: RoomRef,
  options: { webhooksLink: boolean },
): SafeHtml {
  const roomUrl = `${workspaceBase(workspace)}/rooms/${room.id}`;
  return html`<p class="crumbs">
    <a href="${roomUrl}">← ${roomLabel(room)}</a>${
      options.webhooksLink
        ? html` · <a href="${webhooksPath(workspace, room.id)}">Webhooks</a>`
        : ''
    }
  </p>`;
}

/** A one-button form that POSTs to `action` (Reveal, Rotate, Enable...). */
export function postButton(csrf: SafeHtml, action: string, label: string, cls = 'secondary') {
  return html`<form method="post" action="${action}" class="inline">
    ${csrf}<button type="submit" class="${cls}">${label}</button>
  </form>`;
}

function keysTable(base: string, keys: IncomingKeyListItem[]): SafeHtml {
  return scrollBox(
    'Incoming webhook keys',
    html`<table class="webhooks">
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
    </table>`,
  );
}

function hooksTable(base: string, hooks: OutgoingHookListItem[]): SafeHtml {
  return scrollBox(
    'Outgoing webhooks',
    html`<table class="webhooks">
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
    </table>`,
  );
}

/** The other list's page, kept in a pager's links (page 1 has no parameter). */
const pageOrNone = (page: number): number | undefined => (page > 1 ? page : undefined);

export interface WebhooksTabData {
  workspace: WorkspaceRef;
  room: RoomRef;
  /** A page of each (`?keys_page=`, `?hooks_page=`: the tab pages them apart). */
  keys: ListPage<IncomingKeyListItem>;
  hooks: ListPage<OutgoingHookListItem>;
  /** The incoming key form as posted, with its errors. */
  values?: { name?: string | undefined };
  errors?: Record<string, string>;
  /** The outgoing hook form as posted, with its error. */
  outgoing?: { targetUrl?: string | undefined; error?: string | undefined };
}

export function webhooksTabPage(ctx: PageContext, data: WebhooksTabData): SafeHtml {
  const { workspace, room, keys, hooks, values = {}, errors = {} } = data;
  const base = webhooksPath(workspace, room.id);
  const csrf = csrfField(ctx);
  const label = roomLabel(room);
  return layout(ctx, {
    title: `Webhooks · ${label}`,
    section: 'rooms',
    body: html`${settingsCrumbs(workspace, room, { webhooksLink: false })}
      <div class="page-head">
        <h1>Settings · Webhooks</h1>
        <span class="muted">${label}</span>
      </div>
      <section class="card webhooks-section" aria-labelledby="incoming-keys">
        <h2 id="incoming-keys">Incoming webhooks</h2>
        <p class="muted">
          Other systems post messages into ${label} with <code>POST /wh/in/&lt;key&gt;</code>. The
          key is the whole credential: treat its URL like a password. A key posts with its creator's
          seat, so it stops working if they leave the room or the workspace.
        </p>
        ${
          keys.items.length
            ? keysTable(base, keys.items)
            : keys.total
              ? ''
              : emptyState('No incoming keys yet', 'Create one to let another system post here.')
        }
        ${listFooter(keys, { path: base, query: { hooks_page: pageOrNone(hooks.page) }, param: 'keys_page' })}
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
          hooks.items.length
            ? hooksTable(base, hooks.items)
            : hooks.total
              ? ''
              : emptyState('No outgoing hooks yet', "Create one to receive this room's messages.")
        }
        ${listFooter(hooks, { path: base, query: { keys_page: pageOrNone(keys.page) }, param: 'hooks_page' })}
        ${outgoingHookForm(ctx, base, data.outgoing)}
      </section>`,
  });
}

/** The tab's outgoing hook form, as kept-form.ts names it (refused in outgoing-routes.ts). */
export const OUTGOING_FORM = 'webhooks.outgoing';

/** The outgoing hook create form on the tab, with its error after a refused URL. */
function outgoingHookForm(
  ctx: PageContext,
  base: string,
  posted: { targetUrl?: string | undefined; error?: string | undefined } = {},
): SafeHtml {
  return html`<form method="post" action="${base}/outgoing" novalidate class="webhook-create">
    ${csrfField(ctx)}
    ${field({
      label: 'Target URL',
      name: 'target_url',
      type: 'url',
      value: posted.targetUrl,
      error: posted.error,
      required: true,
      maxlength: OUTGOING_TARGET_MAX,
      hint: 'An https URL you control; it receives a signed POST for every message.',
    })}
    <button type="submit">Create hook</button>
  </form>`;
}

export interface IncomingKeyData {
  workspace: WorkspaceRef;
  room: RoomRef;
  key: IncomingKeyListItem;
  publicUrl: string;
  /** The raw key, only in the answer to Reveal. */
  rawKey?: string | undefined;
  /** The GitHub signing secret form's error, after a refused post (kept-form). */
  githubSecretError?: string | undefined;
}

export function incomingKeyPage(ctx: PageContext, data: IncomingKeyData): SafeHtml {
  const { workspace, room, key, rawKey } = data;
  const here = incomingKeyPath(workspace, room.id, key.id);
  const csrf = csrfField(ctx);
  const shownKey = rawKey ?? masked(key.key_prefix);
  const ingestUrl = `${data.publicUrl}/wh/in/${shownKey}`;
  const action = (path: string, label: string, cls?: string): SafeHtml =>
    postButton(csrf, `${here}/${path}`, label, cls);
  return layout(ctx, {
    title: `${key.name} · Webhooks`,
    section: 'rooms',
    scripts: rawKey ? [COPY_SCRIPT] : [],
    body: html`${settingsCrumbs(workspace, room, { webhooksLink: true })}
      <div class="card">
        <h1>${key.name} <span class="badge ${STATE_BADGE[key.state]}">${key.state}</span></h1>
        <dl class="kv">
          <dt>Key</dt>
          <dd>
            <code class="secret" id="incoming-key" data-testid="incoming-key">${shownKey}</code>
            ${
              rawKey
                ? copyButton('incoming-key', 'the key')
                : action('reveal', 'Reveal', 'secondary small')
            }
          </dd>
          <dt>Ingest URL</dt>
          <dd>
            <code id="ingest-url" data-testid="ingest-url">${ingestUrl}</code>
            ${rawKey ? copyButton('ingest-url', 'the ingest URL') : ''}
          </dd>
          <dt>Posts into</dt>
          <dd>${roomLabel(room)}</dd>
          <dt>Created by</dt>
          <dd>${key.created_by_name}, ${timeAgo(key.created_at)}</dd>
          ${
            key.rotated_at
              ? html`<dt>Rotated</dt>
                  <dd>${timeAgo(key.rotated_at)}</dd>`
              : ''
          }
        </dl>
        ${senderUrlsSection({
          publicUrl: data.publicUrl,
          shownKey,
          rawKey,
          key,
          githubForm: { action: `${here}/github-secret`, csrf, error: data.githubSecretError },
        })}
        <div class="button-row">
          ${confirmLink(`${here}/rotate`, 'Rotate', { cls: 'secondary' })}
          ${key.state === 'disabled' ? action('enable', 'Enable') : action('disable', 'Disable')}
          ${confirmLink(`${here}/delete`, 'Delete key')}
        </div>
      </div>`,
  });
}

/**
 * "Rotate the key …?": asked first, since a new key breaks every sender at once (as deleting
 * does), though the key's name, room and history stay.
 */
export function rotateKeyConfirmPage(
  ctx: PageContext,
  data: { workspace: WorkspaceRef; room: RoomRef; key: IncomingKeyListItem },
): SafeHtml {
  const { workspace, room, key } = data;
  const here = incomingKeyPath(workspace, room.id, key.id);
  return confirmPage(ctx, {
    question: `Rotate the key "${key.name}"?`,
    section: 'rooms',
    crumbs: settingsCrumbs(workspace, room, { webhooksLink: true }),
    consequences: html`The current key stops working at once: every system posting to its URL gets
    404 until it is given the new key, which you can reveal on the key's page afterwards.`,
    action: `${here}/rotate`,
    confirmLabel: 'Rotate key',
    cancelHref: here,
  });
}

/** "Delete the key …?": asked before posts to it start answering 404 for good. */
export function deleteKeyConfirmPage(
  ctx: PageContext,
  data: { workspace: WorkspaceRef; room: RoomRef; key: IncomingKeyListItem },
): SafeHtml {
  const { workspace, room, key } = data;
  const here = incomingKeyPath(workspace, room.id, key.id);
  return confirmPage(ctx, {
    question: `Delete the key "${key.name}"?`,
    section: 'rooms',
    crumbs: settingsCrumbs(workspace, room, { webhooksLink: true }),
    consequences: html`Posts to its URL answer 404 from now on, and it cannot be enabled again:
    whatever sends to it needs a new key. To stop it for a while instead, disable it.`,
    action: `${here}/delete`,
    confirmLabel: 'Delete key',
    cancelHref: here,
  });
}
