import type { Message, Room, Workspace } from '@ferry/db';
import {
  MESSAGE_BODY_MAX,
  ROOM_NAME_MAX,
  roomLabel,
  type MentionHandles,
  type MentionSuggestion,
  type Participant,
  type ListPage,
  type RoomListItem,
  type OriginalPayload,
} from '@ferry/workspace';
import { plural, timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import {
  csrfField,
  emptyState,
  field,
  layout,
  workspaceBase,
  type PageContext,
} from '../../shared/layout.js';
import { confirmLink, confirmPage } from '../../shared/confirm.js';
import { listFooter } from '../../shared/pager.js';
import { messageItems } from './message-views.js';

/** The rooms list and the room page (messages, composer), and the offer to join a channel. */

type WorkspaceRef = Pick<Workspace, 'id' | 'slug'>;

export const roomsPath = (workspace: WorkspaceRef): string => `${workspaceBase(workspace)}/rooms`;
export const roomPath = (workspace: WorkspaceRef, roomId: string): string =>
  `${roomsPath(workspace)}/${roomId}`;

function roomRow(
  base: string,
  csrf: SafeHtml,
  room: RoomListItem,
  options: { canJoin: boolean },
): SafeHtml {
  const label = roomLabel(room);
  return html`<li class="room-row ${room.joined ? 'joined' : ''}">
    <div class="room-main">
      <a class="room-name" href="${base}/${room.id}">${label}</a>
      <span class="muted">
        ${plural(room.memberCount, 'member')} ·
        ${room.lastMessageAt ? html`active ${timeAgo(room.lastMessageAt)}` : 'no messages yet'}
      </span>
    </div>
    <div class="room-actions">
      ${
        room.joined
          ? html`<span class="badge ok">Joined</span> ${confirmLink(
                `${base}/${room.id}/leave?from=rooms`,
                'Leave',
                {
                  cls: 'secondary small',
                  hiddenLabel: label,
                },
              )}`
          : options.canJoin
            ? html`<form method="post" action="${base}/${room.id}/join" class="inline">
                ${csrf}<button type="submit" class="small">
                  Join<span class="visually-hidden"> ${label}</span>
                </button>
              </form>`
            : ''
      }
    </div>
  </li>`;
}

export interface RoomsListData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
  /** A page of them, with how many the viewer is in (of all, not only this page). */
  rooms: ListPage<RoomListItem> & { joined: number };
  /** The viewer may see and join every channel (not only those they are in). */
  canBrowse: boolean;
  canCreate: boolean;
  values?: { name?: string | undefined };
  errors?: Record<string, string>;
}

export function roomsListPage(ctx: PageContext, data: RoomsListData): SafeHtml {
  const { workspace, canBrowse: browse, canCreate, values = {}, errors = {} } = data;
  const rooms = data.rooms.items;
  const base = roomsPath(workspace);
  const csrf = csrfField(ctx);
  const joinedCount = data.rooms.joined;
  const section = (title: string, kind: RoomListItem['kind'], id: string): SafeHtml => {
    const items = rooms.filter((r) => r.kind === kind);
    return items.length
      ? html`<section aria-labelledby="${id}">
          <h2 id="${id}">${title}</h2>
          <ul class="room-list">
            ${items.map((r) => roomRow(base, csrf, r, { canJoin: r.kind === 'channel' && browse }))}
          </ul>
        </section>`
      : html``;
  };
  const createCard = canCreate
    ? html`<aside class="card create-room" aria-labelledby="create-room">
        <h2 id="create-room">Create a channel</h2>
        <form method="post" action="${base}" novalidate>
          ${csrf}
          ${field({
            label: 'Channel name',
            name: 'name',
            value: values.name,
            error: errors.name,
            required: true,
            maxlength: ROOM_NAME_MAX,
            hint: 'Lower case with dashes: “Support & Billing” becomes #support-billing.',
          })}
          <button type="submit">Create channel</button>
        </form>
      </aside>`
    : html``;
  const empty = browse
    ? emptyState(
        'No channels yet',
        canCreate
          ? 'Create the first one: a channel is a place for a topic or a team.'
          : 'Nobody has created a channel yet.',
      )
    : emptyState(
        'You are not in any rooms yet',
        `Rooms you are added to in ${workspace.name} will show up here.`,
      );
  return layout(ctx, {
    title: 'Rooms',
    section: 'rooms',
    body: html`<div class="page-head">
        <h1>Rooms</h1>
        <span class="muted">You are in ${plural(joinedCount, 'room')}.</span>
      </div>
      <div class="rooms-layout ${canCreate ? '' : 'single'}">
        <div class="rooms-lists">
          ${
            rooms.length
              ? html`${section(browse ? 'Channels' : 'Your channels', 'channel', 'channels')}
                ${section('Direct messages', 'dm', 'dms')}
                ${section('Conversations', 'conversation', 'conversations')}`
              : data.rooms.total
                ? ''
                : empty
          }
          ${listFooter(data.rooms, { path: base })}
        </div>
        ${createCard}
      </div>`,
  });
}

export interface RoomPageData {
  workspace: WorkspaceRef;
  room: Pick<Room, 'id' | 'kind' | 'name'>;
  joined: boolean;
  messages: Message[];
  /** Earlier messages exist before the first one shown. */
  more: boolean;
  /** Showing the latest messages (no `?before=`): live updates apply. */
  latest: boolean;
  handles: MentionHandles;
  memberCount: number;
  /** A feedback conversation's people (reporter, posters, assignee), shown instead of the count. */
  participants?: Participant[] | undefined;
  /** The feedback ticket of a conversation room, for viewers who may read feedback. */
  feedbackId?: string | undefined;
  canManageWebhooks: boolean;
  /** Webhook badges' links to their keys' pages (features/webhooks/badges.ts). */
  webhookKeyLinks?: ReadonlyMap<string, string> | undefined;
  /** Webhook messages' original payloads, for admins' "View payload". */
  payloads?: ReadonlyMap<string, OriginalPayload> | undefined;
  composer?: { draft?: string; error?: string | undefined };
  /** Whom the composer's @-autocomplete offers (mention-complete.js). */
  mentions?: MentionSuggestion[] | undefined;
}

const PARTICIPANT_NOTE: Record<Participant['role'], string> = {
  reporter: ' (reporter)',
  assignee: ' (assignee)',
  agent: ' (agent)',
  webhook: ' (webhook)',
  member: '',
};

/** "Taking part: Ada (reporter), Grace, shop (agent)". */
function participantsText(people: Participant[]): string {
  if (!people.length) return 'Nobody has posted yet';
  return `Taking part: ${people.map((p) => `${p.name}${PARTICIPANT_NOTE[p.role]}`).join(', ')}`;
}

/**
 * The room page. The message list is named by the room title (aria-labelledby), not by a label
 * of its own: "Message" must name exactly one control, the composer's textbox.
 */
export function roomPage(ctx: PageContext, data: RoomPageData): SafeHtml {
  const { workspace, room, messages, latest, composer = {} } = data;
  const csrf = csrfField(ctx);
  const here = roomPath(workspace, room.id);
  const label = roomLabel(room);
  const oldest = messages[0];
  const kindBadge = room.kind === 'channel' ? '' : html`<span class="badge">${room.kind}</span>`;
  return layout(ctx, {
    title: label,
    section: 'rooms',
    scripts: ['/assets/room.js', '/assets/mention-complete.js'],
    roomId: room.id,
    body: html`<div class="room" data-room-id="${room.id}" data-live="${String(latest)}">
      <header class="room-head">
        <div>
          <h1 id="room-title">${label} ${kindBadge}</h1>
          <p class="muted participants">
            ${data.participants ? participantsText(data.participants) : plural(data.memberCount, 'member')}${
              data.feedbackId
                ? html` ·
                    <a href="${workspaceBase(workspace)}/feedback/${data.feedbackId}"
                      >Open the feedback ticket</a
                    >`
                : ''
            }
          </p>
        </div>
        <div class="room-actions">
          ${room.kind === 'dm' ? '' : html`<a class="button secondary small" href="${here}/people">People</a>`}
          ${data.canManageWebhooks && room.kind !== 'dm' ? html`<a class="button secondary small" href="${here}/settings/webhooks">Webhooks</a>` : ''}
          ${
            data.joined
              ? confirmLink(`${here}/leave`, 'Leave', { cls: 'secondary small' })
              : html`<form method="post" action="${here}/join" class="inline">
                  ${csrf}<button type="submit" class="small">Join</button>
                </form>`
          }
        </div>
      </header>
      <div class="flash error room-notice" role="status" hidden></div>
      <ol class="messages" id="messages" aria-labelledby="room-title" aria-live="polite">
        ${
          data.more && oldest
            ? html`<li class="load-earlier">
                <a href="${here}?before=${oldest.id}">Load earlier messages</a>
              </li>`
            : ''
        }
        ${messageItems(messages, data.handles, {
          webhookKeyLinks: data.webhookKeyLinks,
          payloads: data.canManageWebhooks ? data.payloads : undefined,
        })}
        ${
          messages.length === 0 && latest
            ? html`<li class="empty-room">
                <strong>No messages yet.</strong> Say hello to ${label}.
              </li>`
            : ''
        }
      </ol>
      ${
        latest
          ? ''
          : html`<p class="not-latest">
              You are looking at earlier messages. <a href="${here}">Jump to the latest</a>
            </p>`
      }
      <form
        class="composer ${composer.error ? 'has-error' : ''}"
        id="composer"
        method="post"
        action="${here}/messages"
        novalidate
      >
        ${csrf}
        <label for="message-body" class="visually-hidden">Message</label>
        <div class="composer-row">
          <textarea
            id="message-body"
            name="body"
            rows="2"
            maxlength="${MESSAGE_BODY_MAX}"
            placeholder="Message ${label}"
            aria-describedby="message-body-error mention-hint"
            data-mentions="${JSON.stringify(data.mentions ?? [])}"
            ${composer.error ? html`aria-invalid="true"` : ''}
          >
${composer.draft ?? ''}</textarea>
          <button type="submit">Send</button>
          <ul
            class="mention-list"
            id="mention-list"
            role="listbox"
            aria-label="People to mention"
            hidden
          ></ul>
        </div>
        <p class="visually-hidden" id="mention-hint">
          Type @ and a name to mention someone: arrow keys choose, Enter or Tab inserts, Escape
          closes.
        </p>
        <p class="visually-hidden" id="mention-status" role="status" aria-live="polite"></p>
        <p class="error" id="message-body-error" ${composer.error ? '' : html`hidden`}>
          ${composer.error ?? ''}
        </p>
      </form>
    </div>`,
  });
}

/** A channel the viewer may join but has not: nothing of it is shown, only the offer. */
export function joinOfferPage(
  ctx: PageContext,
  data: { workspace: WorkspaceRef; room: Pick<Room, 'id' | 'kind' | 'name'> },
): SafeHtml {
  const label = roomLabel(data.room);
  return layout(ctx, {
    title: label,
    section: 'rooms',
    body: html`<div class="empty">
      <h2>You are not in ${label}</h2>
      <p>Join the channel to read and post messages.</p>
      <form method="post" action="${roomPath(data.workspace, data.room.id)}/join">
        ${csrfField(ctx)}<button type="submit">Join ${label}</button>
      </form>
      <p><a href="${roomsPath(data.workspace)}">Back to rooms</a></p>
    </div>`,
  });
}

/** "Leave #general?": asked first, since a private room cannot be joined back alone. */
export function leaveRoomConfirmPage(
  ctx: PageContext,
  data: { workspace: WorkspaceRef; room: Pick<Room, 'id' | 'kind' | 'name'>; cancelHref: string },
): SafeHtml {
  const label = roomLabel(data.room);
  const here = roomPath(data.workspace, data.room.id);
  return confirmPage(ctx, {
    question: `Leave ${label}?`,
    section: 'rooms',
    consequences:
      data.room.kind === 'channel'
        ? `You stop receiving its messages, and incoming webhook keys you created for it stop working. You can join it again from the rooms list.`
        : `You stop receiving its messages, and incoming webhook keys you created for it stop working. Someone in it has to add you back.`,
    action: `${here}/leave`,
    confirmLabel: `Leave ${label}`,
    cancelHref: data.cancelHref,
  });
}
