import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { io as connect, type Socket } from 'socket.io-client';
import type { Role } from '@ferry/db';
import {
  createMember,
  createMessage,
  createRoom,
  createWorkspace,
  joinRoom,
  startApp,
  waitUntil,
  type RunningApp,
  sessionCookie,
} from '@ferry/testing';
import { createWebApp } from '../src/app.js';
import { loadWebSettings } from '../src/config.js';
import { webDeps } from '../src/deps.js';
import { firstIdAt } from '@ferry/core';
import {
  CATCH_UP_LOOKBACK_MS,
  CATCH_UP_MAX,
  MESSAGES_STORED_EVENT,
  postMessage,
} from '@ferry/workspace';
import { FormClient, startWeb, type WebHarness } from './harness.js';

/**
 * What the relay's announcer publishes (@socket.io/redis-emitter's serverSideEmit, see
 * packages/workspace live.ts): stored messages by id, heard by every web process on the prefix.
 */
async function announceStored(
  web: WebHarness,
  messages: { id: string; roomId: string; workspaceId: string; html?: string }[],
): Promise<void> {
  await web.ctx.redis.publish(
    `${web.ctx.config.REDIS_PREFIX}:socket.io-request#/#`,
    JSON.stringify({ uid: 'emitter', type: 6, data: [MESSAGES_STORED_EVENT, { messages }] }),
  );
}

/** What room.js does: a JSON post with the page's CSRF token in a header. */
async function jsonPost(
  url: string,
  cookie: string,
  path: string,
  body: unknown,
  options: { csrf?: boolean } = {},
): Promise<Response> {
  const page = await fetch(`${url}${path.replace(/\/messages$/, '')}`, { headers: { cookie } });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      cookie,
      'content-type': 'application/json',
      accept: 'application/json',
      ...(options.csrf === false ? {} : { 'x-csrf-token': csrf }),
    },
    body: JSON.stringify(body),
  });
}

interface LiveMessage {
  id: string;
  roomId: string;
  html: string;
}

interface UnreadMessage {
  workspaceId: string;
  roomId: string;
  messageId: string;
  seated: boolean;
  mention: boolean;
}

interface UnreadState {
  workspaceId: string;
  rooms: { id: string; unread: number }[];
  mentions: number;
}

/** A socket.io client that records what it receives. */
class LiveClient {
  readonly messages: LiveMessage[] = [];
  readonly left: string[] = [];
  readonly unread: UnreadMessage[] = [];
  readonly states: UnreadState[] = [];
  private constructor(readonly socket: Socket) {
    socket.on('message:new', (m: LiveMessage) => this.messages.push(m));
    socket.on('room:left', (e: { roomId: string }) => this.left.push(e.roomId));
    socket.on('unread:message', (e: UnreadMessage) => this.unread.push(e));
    socket.on('unread:state', (e: UnreadState) => this.states.push(e));
  }

  static async open(
    url: string,
    cookie: string,
    headers: Record<string, string> = {},
  ): Promise<LiveClient> {
    const socket = connect(url, {
      transports: ['websocket'],
      extraHeaders: { cookie, ...headers },
      reconnection: false,
      forceNew: true,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    return new LiveClient(socket);
  }

  join(payload: unknown): Promise<{ ok: boolean; error?: { code: string } }> {
    return this.socket.timeout(5000).emitWithAck('room:join', payload);
  }

  waitFor(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    return waitUntil(predicate, what, timeoutMs, 20);
  }

  close(): void {
    this.socket.disconnect();
  }
}

describe('rooms and messages', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  async function seatIn(workspace: { id: string; slug: string }, role: Role = 'member') {
    const seat = await createMember(web.ctx.db, workspace, { role });
    const client = new FormClient(web.url);
    await client.signIn(seat.user.email, seat.user.password);
    const cookie = () => sessionCookie(web.url, seat.user.email, seat.user.password);
    return { seat, client, cookie };
  }

  async function world(role: Role = 'member') {
    const workspace = await createWorkspace(web.ctx.db);
    const { seat, client, cookie } = await seatIn(workspace, role);
    const base = `/w/${workspace.id}/${workspace.slug}`;
    return { workspace, seat, client, cookie, base, rooms: `${base}/rooms` };
  }

  const outboxFor = (messageId: string) =>
    web.ctx.db
      .selectFrom('outbox')
      .selectAll()
      .where('type', '=', 'message_created')
      .where(sql<string>`payload->>'messageId'`, '=', messageId)
      .execute();

  it('creates a channel, joins it, posts and writes one outbox event per message', async () => {
    const { client, cookie, rooms, workspace, seat } = await world();
    const created = await client.post(
      rooms,
      { name: '  #Support & Billing ' },
      { csrfFrom: rooms },
    );
    expect(created.status).toBe(302);
    const roomUrl = created.location!;
    expect(roomUrl).toMatch(new RegExp(`^${rooms}/room_[0-9a-z]{26}$`));
    const roomId = roomUrl.split('/').pop()!;
    const room = await web.ctx.db
      .selectFrom('rooms')
      .selectAll()
      .where('id', '=', roomId)
      .executeTakeFirstOrThrow();
    expect(room).toMatchObject({ kind: 'channel', name: 'support-billing', created_by: seat.id });

    const page = await client.get(roomUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain('#support-billing');
    expect(page.text).toMatch(/<label for="message-body"[^>]*>Message<\/label>/);
    expect(page.text).toMatch(/<textarea\s+id="message-body"\s+name="body"/);
    expect(page.text).toMatch(/<button type="submit">Send<\/button>/);
    expect(page.text).toContain('No messages yet.');

    const posted = await client.post(
      `${roomUrl}/messages`,
      { body: '  Hello **team**, ping @' + seat.user.name.split(' ')[0] + '  ' },
      { csrfFrom: roomUrl },
    );
    expect(posted.status).toBe(302);
    expect(posted.location).toBe(roomUrl);
    const message = await web.ctx.db
      .selectFrom('messages')
      .selectAll()
      .where('room_id', '=', roomId)
      .executeTakeFirstOrThrow();
    expect(message).toMatchObject({
      workspace_id: workspace.id,
      author_kind: 'member',
      author_member_id: seat.id,
      author_ref: null,
      display_name: seat.user.name,
      body: `Hello **team**, ping @${seat.user.name.split(' ')[0]}`,
      kind: 'text',
    });
    const events = await outboxFor(message.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toEqual({
      messageId: message.id,
      roomId,
      workspaceId: workspace.id,
      authorKind: 'member',
    });
    // Not its sent_at: startWeb runs the relay, as `pnpm start` does, and it may have sent the
    // event already (on a loaded host it once did so before this read).

    const after = await client.get(roomUrl);
    expect(after.text).toContain(`data-id="${message.id}"`);
    expect(after.text).toContain('Hello <strong>team</strong>');
    expect(after.text).toContain(`<span class="mention">@${seat.user.name.split(' ')[0]}</span>`);
    expect(after.text).not.toContain('No messages yet.');

    // The fetch path of room.js: JSON in, the rendered message out; still one event each.
    const res = await jsonPost(web.url, await cookie(), `${roomUrl}/messages`, {
      body: 'via fetch',
    });
    expect(res.status).toBe(201);
    const json = (await res.json()) as { message: { id: string; html: string } };
    // Posted right after the author's previous message: rendered as part of its group.
    expect(json.message.html).toMatch(
      new RegExp(
        `^<li\\s+class="message grouped author-member kind-text"\\s+data-id="${json.message.id}"`,
      ),
    );
    expect(await outboxFor(json.message.id)).toHaveLength(1);
    expect(
      await web.ctx.db
        .selectFrom('outbox')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('type', '=', 'message_created')
        .where(sql<string>`payload->>'roomId'`, '=', roomId)
        .executeTakeFirstOrThrow(),
    ).toEqual({ n: '2' });
  });

  it('posts any author through postMessage, atomically with its event', async () => {
    const workspace = await createWorkspace(web.ctx.db);
    const room = await createRoom(web.ctx.db, workspace);
    const input = {
      roomId: room.id,
      workspaceId: workspace.id,
      authorKind: 'webhook' as const,
      authorRef: 'whk_ci',
      displayName: 'CI',
      body: 'build green',
    };
    // Inside a caller's transaction that rolls back: neither the message nor its event remain.
    await expect(
      web.ctx.db.transaction().execute(async (trx) => {
        await postMessage(trx, input);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const none = await web.ctx.db
      .selectFrom('messages')
      .select('id')
      .where('room_id', '=', room.id)
      .execute();
    expect(none).toHaveLength(0);
    expect(
      await web.ctx.db
        .selectFrom('outbox')
        .select('id')
        .where(sql<string>`payload->>'roomId'`, '=', room.id)
        .execute(),
    ).toHaveLength(0);

    const message = await postMessage(web.ctx.db, {
      ...input,
      kind: 'progress',
      metadata: { n: 1 },
    });
    expect(message).toMatchObject({
      author_kind: 'webhook',
      author_member_id: null,
      author_ref: 'whk_ci',
      kind: 'progress',
      metadata: { n: 1 },
    });
    const [event] = await outboxFor(message.id);
    expect(event?.payload).toMatchObject({ authorKind: 'webhook', roomId: room.id });
    await expect(postMessage(web.ctx.db, { ...input, body: ' ' })).rejects.toMatchObject({
      code: 'validation_failed',
      options: { fields: { body: 'Write a message.' } },
    });
  });

  it('answers bad names and bodies with inline errors, never a 500', async () => {
    const { client, cookie, rooms, workspace, seat } = await world();
    for (const [name, error] of [
      ['', 'Give the room a name.'],
      ['   ', 'Give the room a name.'],
      ['x'.repeat(81), 'At most 80 characters.'],
      ['!!!', 'Use at least one letter or digit.'],
    ] as const) {
      const res = await client.post(rooms, { name }, { csrfFrom: rooms });
      expect(res.status).toBe(303);
      const resPage = await client.follow(res);
      expect(resPage.text).toContain(error);
    }
    expect((await client.post(rooms, { name: 'x'.repeat(80) }, { csrfFrom: rooms })).status).toBe(
      302,
    );
    await createRoom(web.ctx.db, workspace, { name: 'general' });
    const duplicate = await client.post(rooms, { name: 'General' }, { csrfFrom: rooms });
    expect(duplicate.status).toBe(303);
    const duplicatePage = await client.follow(duplicate);
    expect(duplicatePage.text).toContain('#general already exists');
    expect(duplicatePage.text).toContain('value="General"');

    const room = await createRoom(web.ctx.db, workspace, { name: 'talk', members: [seat] });
    const url = `${rooms}/${room.id}`;
    const empty = await client.post(`${url}/messages`, { body: ' \n ' }, { csrfFrom: url });
    expect(empty.status).toBe(303);
    const emptyPage = await client.follow(empty);
    expect(emptyPage.text).toContain('Write a message.');
    const long = await client.post(
      `${url}/messages`,
      { body: 'y'.repeat(20_001) },
      { csrfFrom: url },
    );
    expect(long.status).toBe(303);
    const longPage = await client.follow(long);
    expect(longPage.text).toContain('At most 20,000 characters.');
    expect(longPage.text).toContain('y'.repeat(100)); // the draft is kept
    const exact = await client.post(
      `${url}/messages`,
      { body: 'z'.repeat(20_000) },
      { csrfFrom: url },
    );
    expect(exact.status).toBe(302);
    // Past the form parser's limit: refused before it is read, still a clear 4xx.
    const huge = await client.post(
      `${url}/messages`,
      { body: 'h'.repeat(300_000) },
      { csrfFrom: url },
    );
    expect(huge.status).toBe(413);
    const noField = await client.post(`${url}/messages`, {}, { csrfFrom: url });
    expect(noField.status).toBe(303);
    expect((await client.follow(noField)).text).toContain('Write a message.');
    const count = await web.ctx.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('room_id', '=', room.id)
      .executeTakeFirstOrThrow();
    expect(count.n).toBe('1');

    const json = await jsonPost(web.url, await cookie(), `${url}/messages`, { body: 42 });
    expect(json.status).toBe(422);
    expect(await json.json()).toMatchObject({
      error: { code: 'validation_failed', fields: { body: 'Write a message.' } },
    });
  });

  it('refuses posts without a CSRF token, and junk, unknown and foreign room ids', async () => {
    const { client, cookie, rooms, workspace, seat } = await world();
    const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
    const url = `${rooms}/${room.id}`;
    const forged = await client.post(`${url}/messages`, { body: 'hi', _csrf: '' });
    expect(forged.status).toBe(403);
    const noToken = await jsonPost(
      web.url,
      await cookie(),
      `${url}/messages`,
      { body: 'hi' },
      { csrf: false },
    );
    expect(noToken.status).toBe(403);

    const foreign = await createRoom(web.ctx.db, await createWorkspace(web.ctx.db));
    for (const id of ['not-an-id', 'room_00000000000000000000000000', foreign.id, seat.id]) {
      expect((await client.get(`${rooms}/${id}`)).status).toBe(404);
      for (const action of ['messages', 'join', 'leave']) {
        const res = await client.post(`${rooms}/${id}/${action}`, { body: 'x' }, { csrfFrom: url });
        expect(res.status).toBe(404);
      }
    }
    expect((await client.get(`${url}?before=junk`)).status).toBe(400);
    expect((await client.get(`${url}?before=msg_00000000000000000000000000`)).status).toBe(200);
    const messages = await web.ctx.db
      .selectFrom('messages')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(messages).toHaveLength(0);
  });

  it('lists channels with their state, joins and leaves, and leaving cuts access at once', async () => {
    const { client, rooms, workspace, seat } = await world();
    const mine = await createRoom(web.ctx.db, workspace, { name: 'mine', members: [seat] });
    const other = await createRoom(web.ctx.db, workspace, { name: 'other' });
    const dm = await createRoom(web.ctx.db, workspace, { name: 'a-and-b', kind: 'dm' });
    const list = await client.get(rooms);
    expect(list.status).toBe(200);
    expect(list.text).toMatch(/#mine[\s\S]*Joined[\s\S]*Leave/);
    expect(list.text).toContain(`action="${rooms}/${other.id}/join"`);
    expect(list.text).not.toContain('a-and-b');
    expect((await client.get(`${rooms}/${dm.id}`)).status).toBe(404);
    expect((await client.post(`${rooms}/${dm.id}/join`, {}, { csrfFrom: rooms })).status).toBe(404);

    // Not joined: only an offer to join, nothing of the channel.
    await createMessage(web.ctx.db, other, { body: 'secret plans' });
    const offer = await client.get(`${rooms}/${other.id}`);
    expect(offer.status).toBe(403);
    expect(offer.text).toContain('Join #other');
    expect(offer.text).not.toContain('secret plans');
    const refused = await client.post(
      `${rooms}/${other.id}/messages`,
      { body: 'hi' },
      { csrfFrom: rooms },
    );
    expect(refused.status).toBe(403);

    const joined = await client.post(`${rooms}/${other.id}/join`, {}, { csrfFrom: rooms });
    expect(joined.status).toBe(302);
    expect(joined.location).toBe(`${rooms}/${other.id}`);
    const page = await client.get(`${rooms}/${other.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('secret plans');
    expect(page.text).toContain('You joined #other.');

    const left = await client.post(`${rooms}/${mine.id}/leave`, {}, { csrfFrom: rooms });
    expect(left.status).toBe(302);
    expect(left.location).toBe(rooms);
    expect((await client.get(`${rooms}/${mine.id}`)).status).toBe(403);
    const late = await client.post(
      `${rooms}/${mine.id}/messages`,
      { body: 'still here?' },
      { csrfFrom: rooms },
    );
    expect(late.status).toBe(403);
    const seatRow = await web.ctx.db
      .selectFrom('room_members')
      .selectAll()
      .where('room_id', '=', mine.id)
      .executeTakeFirstOrThrow();
    expect(seatRow.left_at).not.toBeNull();
    // Rejoining restores access.
    await client.post(`${rooms}/${mine.id}/join`, {}, { csrfFrom: rooms });
    expect((await client.get(`${rooms}/${mine.id}`)).status).toBe(200);
  });

  it('shows guests only their rooms and refuses every other channel with 404', async () => {
    const { client, rooms, workspace, seat } = await world('guest');
    const theirs = await createRoom(web.ctx.db, workspace, { name: 'guest-room', members: [seat] });
    const channel = await createRoom(web.ctx.db, workspace, { name: 'internal' });
    const list = await client.get(rooms);
    expect(list.status).toBe(200);
    expect(list.text).toContain('#guest-room');
    expect(list.text).not.toContain('internal');
    expect(list.text).not.toContain('Create a channel');
    expect((await client.get(`${rooms}/${theirs.id}`)).status).toBe(200);
    expect((await client.get(`${rooms}/${channel.id}`)).status).toBe(404);
    expect((await client.post(`${rooms}/${channel.id}/join`, {}, { csrfFrom: rooms })).status).toBe(
      404,
    );
    expect(
      (await client.post(`${rooms}/${channel.id}/messages`, { body: 'x' }, { csrfFrom: rooms }))
        .status,
    ).toBe(404);
    expect((await client.post(rooms, { name: 'mine' }, { csrfFrom: rooms })).status).toBe(403);
    // A guest who leaves cannot come back by URL.
    await client.post(`${rooms}/${theirs.id}/leave`, {}, { csrfFrom: rooms });
    expect((await client.get(`${rooms}/${theirs.id}`)).status).toBe(404);
    expect((await client.post(`${rooms}/${theirs.id}/join`, {}, { csrfFrom: rooms })).status).toBe(
      404,
    );
    const empty = await client.get(rooms);
    expect(empty.text).toContain('You are not in any rooms yet');
  });

  it('opens feedback conversations to members without joining, never to guests', async () => {
    const { client, rooms, workspace } = await world('member');
    const conversation = await createRoom(web.ctx.db, workspace, {
      kind: 'conversation',
      name: 'Checkout button does nothing',
    });
    await createMessage(web.ctx.db, conversation, {
      author_kind: 'webhook',
      display_name: 'CI bot',
      body: 'build failed',
    });
    const page = await client.get(`${rooms}/${conversation.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Checkout button does nothing');
    expect(page.text).toMatch(/CI bot<\/span><span class="badge link"[^>]*>webhook/);
    const posted = await client.post(
      `${rooms}/${conversation.id}/messages`,
      { body: 'looking' },
      { csrfFrom: rooms },
    );
    expect(posted.status).toBe(302);
    const guest = await seatIn(workspace, 'guest');
    expect((await guest.client.get(`${rooms}/${conversation.id}`)).status).toBe(404);
  });

  it('cuts a removed workspace member off pages and posts at once', async () => {
    const { client, rooms, workspace, seat } = await world();
    const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
    expect((await client.get(`${rooms}/${room.id}`)).status).toBe(200);
    const csrf = await client.csrf(`${rooms}/${room.id}`);
    await web.ctx.db
      .updateTable('members')
      .set({ left_at: new Date() })
      .where('id', '=', seat.id)
      .execute();
    expect((await client.get(`${rooms}/${room.id}`)).status).toBe(404);
    const res = await client.post(`${rooms}/${room.id}/messages`, { body: 'hi', _csrf: csrf });
    expect(res.status).toBe(404);
  });

  it('shows the latest 100 messages with a link to earlier ones, and author badges', async () => {
    const { client, rooms, workspace, seat } = await world();
    const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
    const rows = [];
    for (let i = 0; i < 105; i++) {
      rows.push(await createMessage(web.ctx.db, room, { body: `number ${i}.` }));
    }
    const sorted = rows.map((r) => r.id).sort();
    const page = await client.get(`${rooms}/${room.id}`);
    const ids = [...page.text.matchAll(/data-id="(msg_[0-9a-z]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(sorted.slice(5));
    expect(page.text).toContain(`?before=${sorted[5]}`);
    expect(page.text).toContain('class="badge system"');
    const earlier = await client.get(`${rooms}/${room.id}?before=${sorted[5]}`);
    const earlierIds = [...earlier.text.matchAll(/data-id="(msg_[0-9a-z]+)"/g)].map((m) => m[1]);
    expect(earlierIds).toEqual(sorted.slice(0, 5));
    expect(earlier.text).toContain('Jump to the latest');
    expect(earlier.text).not.toContain('Load earlier messages');
  });

  describe('live updates', () => {
    it('refuses a socket opened from a page of another site (Origin), with a valid session', async () => {
      const { cookie } = await world();
      const session = await cookie();
      await expect(
        LiveClient.open(web.url, session, { origin: 'https://evil.example' }),
      ).rejects.toThrow();
      await expect(LiveClient.open(web.url, session, { origin: 'null' })).rejects.toThrow();
      // The app's own origins: the one it was reached at, and PUBLIC_URL's.
      for (const origin of [new URL(web.url).origin, new URL(web.ctx.config.PUBLIC_URL).origin]) {
        const live = await LiveClient.open(web.url, session, { origin });
        live.close();
      }
    });

    /** Stores messages in a room as the app does (outbox row included), from Ferry itself. */
    const systemPoster = (roomId: string, workspaceId: string) => (body: string) =>
      postMessage(web.ctx.db, {
        roomId,
        workspaceId,
        authorKind: 'system',
        displayName: 'Ferry',
        body,
      });

    /**
     * Waits for the relay to have sent these messages: announced to nobody before a socket joins,
     * so what that socket gets afterwards can only be the catch-up.
     */
    const relayed = (ids: readonly string[], what: string) =>
      waitUntil(async () => {
        const unsent = await web.ctx.db
          .selectFrom('outbox')
          .select('id')
          .where('sent_at', 'is', null)
          .where(sql<boolean>`payload->>'messageId' = any(${ids}::text[])`)
          .execute();
        return unsent.length === 0;
      }, `the relay to send ${what} before the socket joins`);

    it('sends a joining page what was stored after its newest message (catch-up)', async () => {
      const { cookie, workspace, seat } = await world();
      const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
      const post = systemPoster(room.id, workspace.id);
      const rendered = await post('already on the page');
      await new Promise((resolve) => setTimeout(resolve, 2));
      const missedOne = await post('posted before the *join*');
      await new Promise((resolve) => setTimeout(resolve, 2));
      const missedTwo = await post('and another');
      await relayed([rendered.id, missedOne.id, missedTwo.id], 'the three messages');
      const live = await LiveClient.open(web.url, await cookie());
      try {
        expect(await live.join({ roomId: room.id, after: 'msg_junk' })).toMatchObject({
          ok: false,
          error: { code: 'validation_failed' },
        });
        expect(await live.join({ roomId: room.id, after: rendered.id })).toEqual({ ok: true });
        // The rendered one too: the catch-up looks back a few seconds (catchUpFrom), and the page
        // drops what it has.
        await live.waitFor(() => live.messages.length === 3, 'the two missed messages');
        expect(live.messages.map((m) => m.id)).toEqual([rendered.id, missedOne.id, missedTwo.id]);
        expect(live.messages[1]!.html).toContain('posted before the <em>join</em>');
        expect(live.messages.every((m) => m.roomId === room.id)).toBe(true);
      } finally {
        live.close();
      }
    });

    it('sends a page that missed more than one page of messages every one of them, in order', async () => {
      const { cookie, workspace, seat } = await world();
      const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
      const post = systemPoster(room.id, workspace.id);
      const rendered = await post('already on the page');
      // Ids sort by creation time: the next millisecond's ids all sort after the rendered one.
      await waitUntil(
        () => Date.now() > rendered.created_at.getTime() + 1,
        'the clock to pass the rendered message',
      );
      const missed: string[] = [];
      for (let i = 0; i < CATCH_UP_MAX * 2 + 30; i += 1)
        missed.push((await post(`missed ${i}`)).id);
      await relayed(missed, 'every message');
      const live = await LiveClient.open(web.url, await cookie());
      try {
        expect(await live.join({ roomId: room.id, after: rendered.id })).toEqual({ ok: true });
        await live.waitFor(
          () => live.messages.length >= missed.length,
          `all ${missed.length} missed messages (three pages of ${CATCH_UP_MAX})`,
        );
        expect(live.messages.map((m) => m.id)).toEqual([rendered.id, ...missed].sort());
      } finally {
        live.close();
      }
    });

    it('sends a page a message that committed after a newer one it has (out of id order)', async () => {
      const { cookie, workspace, seat } = await world();
      const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
      const post = systemPoster(room.id, workspace.id);
      const rendered = await post('already on the page');
      const at = rendered.created_at.getTime();
      // Ids made before `rendered`'s (another process's transaction, slow to commit), stored after
      // it: one within the catch-up's look-back, one older than it.
      const idAt = (ms: number) => `${firstIdAt('message', new Date(ms)).slice(0, -1)}1`;
      const postMadeAt = (ms: number, body: string) =>
        postMessage(web.ctx.db, {
          id: idAt(ms),
          roomId: room.id,
          workspaceId: workspace.id,
          authorKind: 'system',
          displayName: 'Ferry',
          body,
        });
      const late = await postMadeAt(at - 2_000, 'committed late');
      const tooLate = await postMadeAt(at - CATCH_UP_LOOKBACK_MS - 2_000, 'committed much later');
      await relayed([rendered.id, late.id, tooLate.id], 'the three messages');
      const live = await LiveClient.open(web.url, await cookie());
      try {
        expect(await live.join({ roomId: room.id, after: rendered.id })).toEqual({ ok: true });
        await live.waitFor(
          () => live.messages.length === 2,
          'the late message and the rendered one',
        );
        expect(live.messages.map((m) => m.id)).toEqual([late.id, rendered.id]);
        expect(live.messages[0]!.html).toContain('committed late');
      } finally {
        live.close();
      }
    });

    it('joins checked rooms only and delivers new messages to sockets in the room', async () => {
      const { client, cookie, rooms, workspace, seat } = await world();
      const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
      const other = await createRoom(web.ctx.db, workspace);
      const live = await LiveClient.open(web.url, await cookie());
      try {
        expect(await live.join({ roomId: room.id })).toEqual({ ok: true });
        expect(await live.join({ roomId: other.id })).toMatchObject({
          ok: false,
          error: { code: 'forbidden' },
        });
        const foreign = await createRoom(web.ctx.db, await createWorkspace(web.ctx.db));
        for (const payload of [{ roomId: foreign.id }, { roomId: 'junk' }, 'junk', null]) {
          expect(await live.join(payload)).toMatchObject({ ok: false });
        }
        const url = `${rooms}/${room.id}`;
        await client.post(`${url}/messages`, { body: 'live *one*' }, { csrfFrom: url });
        await live.waitFor(() => live.messages.length === 1, 'message:new');
        const [event] = live.messages;
        expect(event!.roomId).toBe(room.id);
        expect(event!.id).toMatch(/^msg_/);
        expect(event!.html).toMatch(
          new RegExp(`^<li\\s+class="message[^"]*"\\s+data-id="${event!.id}"`),
        );
        expect(event!.html).toContain('live <em>one</em>');
        // A message in a room the socket did not join never arrives.
        await joinRoom(web.ctx.db, other, seat);
        await client.post(
          `${rooms}/${other.id}/messages`,
          { body: 'elsewhere' },
          { csrfFrom: url },
        );
        await client.post(`${url}/messages`, { body: 'two' }, { csrfFrom: url });
        await live.waitFor(() => live.messages.length === 2, 'second message');
        expect(live.messages.map((m) => m.roomId)).toEqual([room.id, room.id]);
      } finally {
        live.close();
      }
    });

    it("gives admins' sockets a webhook message's View payload, live and on catch-up, and members none", async () => {
      const { cookie: adminCookie, workspace, seat: admin } = await world('admin');
      const { seat: member, cookie: memberCookie } = await seatIn(workspace, 'member');
      const room = await createRoom(web.ctx.db, workspace, { members: [admin, member] });
      const hook = (body: string) =>
        postMessage(web.ctx.db, {
          roomId: room.id,
          workspaceId: workspace.id,
          authorKind: 'webhook',
          authorRef: 'iwh_live',
          displayName: 'CI',
          body,
          metadata: { webhook_id: 'iwh_live', format: 'slack' },
          originalPayload: { format: 'json', payload: '{"text":"Deploy *42*"}', truncated: false },
        });
      const adminLive = await LiveClient.open(web.url, await adminCookie());
      const memberLive = await LiveClient.open(web.url, await memberCookie());
      try {
        expect(await adminLive.join({ roomId: room.id })).toEqual({ ok: true });
        expect(await memberLive.join({ roomId: room.id })).toEqual({ ok: true });
        const first = await hook('Deploy **42**');
        await adminLive.waitFor(() => adminLive.messages.length === 1, 'admin: message:new');
        await memberLive.waitFor(() => memberLive.messages.length === 1, 'member: message:new');
        expect(adminLive.messages[0]!.html).toContain('<summary>View payload</summary>');
        expect(adminLive.messages[0]!.html).toContain('&quot;text&quot;: &quot;Deploy *42*&quot;');
        expect(memberLive.messages[0]!.html).toContain('Deploy <strong>42</strong>');
        expect(memberLive.messages[0]!.html).not.toContain('View payload');

        // A page that joins after the message (catch-up) renders it the same way per viewer.
        const second = await hook('Deploy **43**');
        await adminLive.waitFor(() => adminLive.messages.length === 2, 'admin: second message');
        const adminLate = await LiveClient.open(web.url, await adminCookie());
        const memberLate = await LiveClient.open(web.url, await memberCookie());
        try {
          expect(await adminLate.join({ roomId: room.id, after: first.id })).toEqual({ ok: true });
          expect(await memberLate.join({ roomId: room.id, after: first.id })).toEqual({ ok: true });
          // `first` again too (the catch-up's look-back); the page would drop it.
          await adminLate.waitFor(() => adminLate.messages.length === 2, 'admin catch-up');
          await memberLate.waitFor(() => memberLate.messages.length === 2, 'member catch-up');
          expect(adminLate.messages.map((m) => m.id)).toEqual([first.id, second.id]);
          expect(adminLate.messages[1]!.html).toContain('View payload');
          expect(memberLate.messages[1]!.html).not.toContain('View payload');
        } finally {
          adminLate.close();
          memberLate.close();
        }
      } finally {
        adminLive.close();
        memberLive.close();
      }
    });

    it('keeps unread counts live: unread:message, room:read and unread:sync, junk ignored', async () => {
      const { workspace, seat, cookie } = await world();
      const writer = await seatIn(workspace);
      const room = await createRoom(web.ctx.db, workspace, { members: [seat, writer.seat] });
      const foreign = await createRoom(web.ctx.db, await createWorkspace(web.ctx.db));
      const foreignMessage = await createMessage(web.ctx.db, foreign);
      // Two tabs of one user: neither has joined the room's live channel (a dashboard, say).
      const [tab, otherTab] = await Promise.all([
        LiveClient.open(web.url, await cookie()),
        LiveClient.open(web.url, await cookie()),
      ]);
      const say = (body: string) =>
        postMessage(web.ctx.db, {
          roomId: room.id,
          workspaceId: workspace.id,
          authorKind: 'member',
          authorMemberId: writer.seat.id,
          displayName: writer.seat.user.name,
          body,
        });
      try {
        const first = await say('plain');
        const second = await say(`hey @${seat.user.name.split(' ')[0]}`);
        await tab.waitFor(() => tab.unread.length === 2, 'two unread:message events');
        expect(tab.unread).toEqual([
          {
            workspaceId: workspace.id,
            roomId: room.id,
            messageId: first.id,
            seated: true,
            mention: false,
          },
          {
            workspaceId: workspace.id,
            roomId: room.id,
            messageId: second.id,
            seated: true,
            mention: true,
          },
        ]);

        // Junk and rooms the user may not open change nothing and answer nothing.
        for (const payload of [
          'junk',
          null,
          { roomId: room.id },
          { roomId: 'x', messageId: 'y' },
        ]) {
          tab.socket.emit('room:read', payload);
          tab.socket.emit('unread:sync', payload);
        }
        tab.socket.emit('room:read', { roomId: foreign.id, messageId: foreignMessage.id });
        tab.socket.emit('unread:sync', { workspaceId: foreign.workspace_id });
        tab.socket.emit('unread:sync', { workspaceId: workspace.id });
        await tab.waitFor(() => tab.states.length === 1, 'unread:state for the sync');
        await new Promise((r) => setTimeout(r, 100));
        expect(tab.states).toEqual([
          { workspaceId: workspace.id, rooms: [{ id: room.id, unread: 2 }], mentions: 1 },
        ]);

        // Reading in one tab clears the counts in every tab of the user.
        tab.socket.emit('room:read', { roomId: room.id, messageId: second.id });
        const read = {
          workspaceId: workspace.id,
          rooms: [{ id: room.id, unread: 0 }],
          mentions: 0,
        };
        await otherTab.waitFor(() => otherTab.states.length === 1, 'unread:state in the other tab');
        expect(otherTab.states).toEqual([read]);
        await tab.waitFor(() => tab.states.length === 2, 'unread:state after the read');
        expect(tab.states[1]).toEqual(read);
        const readerSeat = await web.ctx.db
          .selectFrom('room_members')
          .select('last_read_message_id')
          .where('room_id', '=', room.id)
          .where('member_id', '=', seat.id)
          .executeTakeFirstOrThrow();
        expect(readerSeat.last_read_message_id).toBe(second.id);
      } finally {
        tab.close();
        otherTab.close();
      }
    });

    it('stops delivering at once after leaving, and after removal from the workspace', async () => {
      const { client, rooms, workspace, seat } = await world();
      const leaver = await seatIn(workspace);
      const removed = await seatIn(workspace);
      const room = await createRoom(web.ctx.db, workspace, {
        members: [seat, leaver.seat, removed.seat],
      });
      const url = `${rooms}/${room.id}`;
      const sockets = await Promise.all(
        [seat, leaver.seat, removed.seat].map(async (s) =>
          LiveClient.open(web.url, await sessionCookie(web.url, s.user.email, s.user.password)),
        ),
      );
      const [watcher, leaving, gone] = sockets as [LiveClient, LiveClient, LiveClient];
      try {
        for (const s of sockets) expect(await s.join({ roomId: room.id })).toEqual({ ok: true });
        await client.post(`${url}/messages`, { body: 'before' }, { csrfFrom: url });
        for (const s of sockets) await s.waitFor(() => s.messages.length === 1, 'first message');

        // Leaving evicts the user's sockets from the room (and tells the page).
        await leaver.client.post(`${url}/leave`, {}, { csrfFrom: url });
        await leaving.waitFor(() => leaving.left.includes(room.id), 'room:left');
        // Removal from the workspace is caught by the re-check before delivery.
        await web.ctx.db
          .updateTable('members')
          .set({ left_at: new Date() })
          .where('id', '=', removed.seat.id)
          .execute();

        await client.post(`${url}/messages`, { body: 'after' }, { csrfFrom: url });
        await watcher.waitFor(() => watcher.messages.length === 2, 'second message');
        await gone.waitFor(() => gone.left.includes(room.id), 'room:left after re-check');
        await new Promise((r) => setTimeout(r, 100));
        expect(leaving.messages).toHaveLength(1);
        expect(gone.messages).toHaveLength(1);
        // And they cannot rejoin the socket room.
        expect(await leaving.join({ roomId: room.id })).toMatchObject({ ok: false });
        expect(await gone.join({ roomId: room.id })).toMatchObject({ ok: false });
      } finally {
        for (const s of sockets) s.close();
      }
    });

    it('shares broadcasts between web processes and accepts announcements from other services', async () => {
      const { client, rooms, workspace, seat } = await world();
      const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
      // A second web process on the same database and Redis prefix.
      const secondDeps = webDeps(web.ctx, loadWebSettings(web.ctx.env));
      const second = createWebApp(secondDeps);
      let other: RunningApp | undefined;
      let live: LiveClient | undefined;
      try {
        other = await startApp(second.app, (server) => second.realtime.attach(server));
        live = await LiveClient.open(
          other.url,
          await sessionCookie(other.url, seat.user.email, seat.user.password),
        );
        expect(await live.join({ roomId: room.id })).toEqual({ ok: true });
        const url = `${rooms}/${room.id}`;
        await client.post(`${url}/messages`, { body: 'from process one' }, { csrfFrom: url });
        await live.waitFor(() => live!.messages.length === 1, 'cross-process message');
        expect(live.messages[0]!.html).toContain('from process one');

        // An announcement from another service: messages by id only, rendered by the web
        // process that holds the socket. Markup smuggled into an announcement is never used.
        const stored = await createMessage(web.ctx.db, room, {
          author_kind: 'agent',
          display_name: 'Fixer',
          body: 'announced **elsewhere**',
        });
        await announceStored(web, [
          {
            id: stored.id,
            roomId: room.id,
            workspaceId: workspace.id,
            html: '<img src=x onerror=alert(1)>',
          },
        ]);
        await live.waitFor(() => live!.messages.length === 2, 'announced message');
        expect(live.messages[1]!.id).toBe(stored.id);
        expect(live.messages[1]!.html).toContain('announced <strong>elsewhere</strong>');
        expect(live.messages[1]!.html).toContain('class="badge agent"');
        expect(live.messages[1]!.html).not.toContain('onerror');
      } finally {
        live?.close();
        await second.realtime.close();
        await other?.close();
        await secondDeps.close();
      }
    });

    it('delivers announcements in the order they arrived: a large one before a small one after it', async () => {
      const { workspace, seat } = await world();
      const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
      const live = await LiveClient.open(
        web.url,
        await sessionCookie(web.url, seat.user.email, seat.user.password),
      );
      try {
        expect(await live.join({ roomId: room.id })).toEqual({ ok: true });
        const stored: Awaited<ReturnType<typeof createMessage>>[] = [];
        for (let i = 0; i < 41; i++) {
          stored.push(
            await createMessage(web.ctx.db, room, {
              author_kind: 'agent',
              display_name: 'Fixer',
              body: `announced ${i}`,
            }),
          );
        }
        const announce = (messages: typeof stored) =>
          announceStored(
            web,
            messages.map((m) => ({ id: m.id, roomId: room.id, workspaceId: workspace.id })),
          );
        // Forty messages (forty rounds of reads before their last is sent), then one more in
        // its own announcement: handled at once, the small one would be sent long before the
        // large one's end, and a room page would show the newest message above older ones.
        await announce(stored.slice(0, 40));
        await announce(stored.slice(40));
        await live.waitFor(() => live.messages.length === 41, 'all 41 announced messages');
        expect(live.messages.map((m) => m.id)).toEqual(stored.map((m) => m.id));
      } finally {
        live.close();
      }
    });
  });
});
