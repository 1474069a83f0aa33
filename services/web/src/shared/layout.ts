import type { Role, Workspace } from '@ferry/db';
import {
  can,
  roomLabel,
  UNREAD_COUNT_LIMIT,
  type Capability,
  type UnreadState,
} from '@ferry/workspace';
import { html, type SafeHtml } from './html.js';

export interface PageContext {
  csrfToken: string;
  user?: { id: string; name: string; email: string } | undefined;
  workspace?: Pick<Workspace, 'id' | 'slug' | 'name'> | undefined;
  role?: Role | undefined;
  /** The sidebar's rooms and unread counts (workspace pages). */
  unread?: UnreadState | undefined;
  flash?: { kind: 'ok' | 'error'; text: string }[] | undefined;
}

export interface PageOptions {
  title: string;
  /** Which nav entry is current. */
  section?: string;
  body: SafeHtml;
  scripts?: string[];
  /** The room this page shows, marked current in the sidebar's room list. */
  roomId?: string;
  /**
   * Where the top bar's Sign in / Sign up bring a signed-out visitor back to (an invite link's
   * page), so using them instead of the page's own buttons does not lose the way back.
   */
  returnTo?: string;
}

export function workspaceBase(workspace: Pick<Workspace, 'id' | 'slug'>): string {
  return `/w/${workspace.id}/${workspace.slug}`;
}

interface NavEntry {
  key: string;
  label: string;
  path: string;
  capability?: Capability;
}

const NAV: NavEntry[] = [
  { key: 'dashboard', label: 'Dashboard', path: '' },
  { key: 'rooms', label: 'Rooms', path: '/rooms' },
  { key: 'mentions', label: 'Mentions', path: '/mentions' },
  { key: 'feedback', label: 'Feedback', path: '/feedback', capability: 'feedback.read' },
  { key: 'errors', label: 'Errors', path: '/errors', capability: 'errors.read' },
  // Issue 43: one click to one's own open groups, as a search the box shows and can edit.
  {
    key: 'errors-assigned',
    label: 'Assigned to me',
    path: '/errors?q=is%3Aunresolved+assigned%3Ame',
    capability: 'errors.read',
  },
  { key: 'error-releases', label: 'Releases', path: '/errors/releases', capability: 'errors.read' },
  { key: 'agents', label: 'Agents', path: '/agents', capability: 'feedback.read' },
  { key: 'members', label: 'Members', path: '/members' },
  { key: 'tokens', label: 'API tokens', path: '/settings/tokens', capability: 'tokens.manage' },
  { key: 'github', label: 'GitHub', path: '/settings/github', capability: 'github.authorize' },
  { key: 'widget', label: 'Widget', path: '/settings/widget', capability: 'settings.manage' },
  {
    key: 'errors-settings',
    label: 'Error reporting',
    path: '/settings/errors',
    capability: 'errors.read',
  },
  {
    key: 'error-alerts',
    label: 'Error alerts',
    path: '/settings/error-alerts',
    capability: 'errors.manage_alerts',
  },
  {
    key: 'event-webhooks',
    label: 'Event webhooks',
    path: '/settings/event-webhooks',
    capability: 'event_webhooks.manage',
  },
];

/** Extra nav entries later features register (Errors, Webhooks...), keeping this file stable. */
export const extraNav: NavEntry[] = [];

/**
 * An unread count beside a link: "99+" past the cap, hidden at zero. public/nav.js keeps it live
 * (data-count is the number it counts from); screen readers hear "3 unread".
 */
function unreadBadge(count: number): SafeHtml {
  const shown = count >= UNREAD_COUNT_LIMIT ? `${UNREAD_COUNT_LIMIT - 1}+` : String(count);
  return html`<span class="unread-badge" data-count="${count}" ${count ? '' : html`hidden`}
    >${shown}<span class="visually-hidden"> unread</span></span
  >`;
}

/** Whether anything in the sidebar is unread: the phone's folded Menu button shows a dot then. */
function anyUnread(ctx: PageContext): boolean {
  return Boolean(ctx.unread && (ctx.unread.mentions > 0 || ctx.unread.rooms.some((r) => r.unread)));
}

function roomList(ctx: PageContext, base: string, currentRoomId: string | undefined): SafeHtml {
  const rooms = ctx.unread?.rooms ?? [];
  if (!rooms.length) return html``;
  return html`<h2 class="nav-group" id="nav-rooms">Your rooms</h2>
    <ul class="room-links" aria-labelledby="nav-rooms">
      ${rooms.map(
        (room) =>
          html`<li>
            <a
              href="${base}/rooms/${room.id}"
              data-room-id="${room.id}"
              title="${roomLabel(room)}"
              class="${room.unread ? 'has-unread' : ''}"
              ${room.id === currentRoomId ? html`aria-current="page"` : ''}
              ><span class="room-link-name">${roomLabel(room)}</span>${unreadBadge(room.unread)}</a
            >
          </li>`,
      )}
    </ul>
    ${
      // The sidebar lists a bounded few (unread first); the Rooms page pages through them all.
      (ctx.unread?.roomCount ?? 0) > rooms.length
        ? html`<a class="nav-more" href="${base}/rooms"
            >All ${ctx.unread?.roomCount ?? 0} rooms →</a
          >`
        : ''
    }`;
}

function nav(ctx: PageContext, options: PageOptions): SafeHtml {
  if (!ctx.workspace || !ctx.role) return html``;
  const base = workspaceBase(ctx.workspace);
  const role = ctx.role;
  const entries = [...NAV, ...extraNav].filter((e) => !e.capability || can(role, e.capability));
  // A room in the list is the current link itself; other rooms keep "Rooms" current.
  const listed = ctx.unread?.rooms.some((room) => room.id === options.roomId) ?? false;
  const current = listed ? undefined : options.section;
  // On a phone the links fold behind the Menu button (public/nav.js); without script they stay a
  // scrolling strip.
  return html`<nav class="sidebar" aria-label="Workspace" data-workspace-id="${ctx.workspace.id}">
    <div class="nav-head">
      <a class="ws-name" href="/workspaces" title="${ctx.workspace.name} (switch workspace)"
        ><span class="one-line">${ctx.workspace.name}</span><span class="switch">⇅</span></a
      >
      <button
        type="button"
        class="menu-toggle secondary small ${anyUnread(ctx) ? 'has-unread' : ''}"
        aria-expanded="false"
        aria-controls="nav-links"
        hidden
      >
        Menu
      </button>
    </div>
    <div id="nav-links">
      <ul>
        ${entries.map(
          (e) =>
            html`<li>
              <a
                href="${base}${e.path}"
                ${e.key === 'mentions' ? html`data-mentions` : ''}
                ${e.key === current ? html`aria-current="page"` : ''}
                >${e.label}${e.key === 'mentions' ? unreadBadge(ctx.unread?.mentions ?? 0) : ''}</a
              >
            </li>`,
        )}
      </ul>
      ${roomList(ctx, base, options.roomId)}
    </div>
  </nav>`;
}

function returnQuery(options: PageOptions): string {
  return options.returnTo ? `?next=${encodeURIComponent(options.returnTo)}` : '';
}

export function layout(ctx: PageContext, options: PageOptions): SafeHtml {
  const title = ctx.workspace
    ? `${options.title} · ${ctx.workspace.name} · Ferry`
    : `${options.title} · Ferry`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="csrf-token" content="${ctx.csrfToken}" />
        <title>${title}</title>
        <link rel="stylesheet" href="/assets/app.css" />
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
      </head>
      <body class="${ctx.workspace ? 'with-sidebar' : 'plain'}">
        <header class="topbar">
          <a class="brand" href="/"><span class="mark" aria-hidden="true">F</span>Ferry</a>
          ${
            ctx.user
              ? html`<div class="account">
                  <span class="who" title="${ctx.user.name} (${ctx.user.email})"
                    >${ctx.user.name}</span
                  >
                  <form method="post" action="/logout" class="inline">
                    <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
                    <button type="submit" class="link">Sign out</button>
                  </form>
                </div>`
              : html`<div class="account">
                  <a href="/login${returnQuery(options)}">Sign in</a>
                  <a class="button small" href="/signup${returnQuery(options)}">Sign up</a>
                </div>`
          }
        </header>
        <div class="frame">
          ${nav(ctx, options)}
          <main id="main">
            ${(ctx.flash ?? []).map((f) => html`<div class="flash ${f.kind}" role="status">${f.text}</div>`)}
            ${options.body}
          </main>
        </div>
        ${
          ctx.workspace
            ? // The live connection (socket.io) serves the sidebar's counts on every page and the
              // room page's messages; nav.js opens it, room.js shares it.
              html`<script src="/socket.io/socket.io.min.js" defer></script>
                <script src="/assets/nav.js" defer></script>`
            : ''
        }
        ${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </body>
    </html>`;
}

/**
 * A labelled input with its hint or, once the value was refused, its inline error instead: the
 * error says what to do, so the hint is not shown beside it ("At least 8 characters." next to
 * "Use at least 8 characters." said the same thing twice). Either is the input's description.
 */
export function field(options: {
  label: string;
  name: string;
  type?: string;
  value?: string | undefined;
  error?: string | undefined;
  required?: boolean;
  maxlength?: number;
  autocomplete?: string;
  hint?: string;
}): SafeHtml {
  const id = `f-${options.name}`;
  return html`<div class="field ${options.error ? 'has-error' : ''}">
    <label for="${id}">${options.label}</label>
    <input
      id="${id}"
      name="${options.name}"
      type="${options.type ?? 'text'}"
      value="${options.value ?? ''}"
      ${options.required ? html`required` : ''}
      ${options.maxlength ? html`maxlength="${options.maxlength}"` : ''}
      ${options.autocomplete ? html`autocomplete="${options.autocomplete}"` : ''}
      ${
        options.error
          ? html`aria-invalid="true" aria-describedby="${id}-error"`
          : options.hint
            ? html`aria-describedby="${id}-hint"`
            : ''
      }
    />
    ${
      options.error
        ? html`<p class="error" id="${id}-error">${options.error}</p>`
        : options.hint
          ? html`<p class="hint" id="${id}-hint">${options.hint}</p>`
          : ''
    }
  </div>`;
}

/**
 * A wide table that scrolls sideways in its own box on a phone instead of widening the page. The
 * box is a named region in the tab order, so keyboard users can scroll it too.
 */
export function scrollBox(label: string, table: SafeHtml): SafeHtml {
  return html`<div class="table-scroll" role="region" aria-label="${label}" tabindex="0">
    ${table}
  </div>`;
}

export function csrfField(ctx: PageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrfToken}" />`;
}

export function emptyState(title: string, body: SafeHtml | string): SafeHtml {
  return html`<div class="empty">
    <h2>${title}</h2>
    <p>${body}</p>
  </div>`;
}
