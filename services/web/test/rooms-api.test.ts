import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Room, Workspace } from '@ferry/db';
import {
  createApiToken,
  createMember,
  createMessage,
  createRoom,
  createWorkspace,
} from '@ferry/testing';
import { startWeb, type WebHarness } from './harness.js';

interface RoomsJson {
  rooms: { id: string; name: string; kind: string }[];
}
interface HistoryJson {
  messages: {
    id: string;
    room_id: string;
    body: string;
    sender: { type: string; id: string | null; name: string };
    created_at: string;
  }[];
  next_before: string | null;
}
interface ErrorJson {
  error: { code: string; message: string; fields?: Record<string, string> };
}

/** Issue 26, part 2: GET /api/v1/rooms and /api/v1/rooms/:id/messages with a tenant:read token. */
describe('rooms API', () => {
  let web: WebHarness;
  let workspace: Workspace;
  let reader: string;
  let general: Room;
  let dm: Room;
  let agentRoom: Room;
  let conversation: Room;
  let elsewhere: Room;
  const bodies: string[] = [];

  beforeAll(async () => {
    web = await startWeb();
    const { db } = web.ctx;
    workspace = await createWorkspace(db);
    const ada = await createMember(db, workspace, { role: 'owner' });
    reader = (await createApiToken(db, workspace, { scopes: ['tenant:read'] })).raw;
    general = await createRoom(db, workspace, { name: 'general', members: [ada] });
    dm = await createRoom(db, workspace, { name: 'ada-bob', kind: 'dm', members: [ada] });
    agentRoom = await createRoom(db, workspace, { name: 'laptop-agent', kind: 'agent' });
    conversation = await createRoom(db, workspace, { name: 'Ticket 1', kind: 'conversation' });
    const other = await createWorkspace(db);
    elsewhere = await createRoom(db, other, { name: 'general' });
    await createMessage(db, elsewhere, { body: 'not yours' });
    await createMessage(db, dm, { body: 'private' });
    for (let i = 0; i < 7; i++) {
      const body = `message ${i}`;
      bodies.push(body);
      await createMessage(db, general, {
        body,
        author_kind: 'member',
        author_member_id: ada.id,
        display_name: 'Ada',
      });
    }
  });
  afterAll(async () => {
    await web.close();
  });

  function get(path: string, token: string | null = reader): Promise<Response> {
    return fetch(`${web.url}/api/v1/rooms${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  }

  it('lists the workspace’s channels, agent rooms and ticket conversations, never a DM', async () => {
    const res = await get('');
    expect(res.status).toBe(200);
    const { rooms } = (await res.json()) as RoomsJson;
    expect(rooms.map((room) => room.id).sort()).toEqual(
      [general.id, agentRoom.id, conversation.id].sort(),
    );
    expect(rooms).toContainEqual({ id: general.id, name: 'general', kind: 'channel' });
    expect(rooms.map((room) => room.id)).not.toContain(dm.id);
    expect(rooms.map((room) => room.id)).not.toContain(elsewhere.id);
  });

  it('pages a room’s messages newest first with next_before until the oldest', async () => {
    const seen: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/${general.id}/messages?limit=3${before ? `&before=${before}` : ''}`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as HistoryJson;
      expect(page.messages.length).toBeLessThanOrEqual(3);
      seen.push(...page.messages.map((message) => message.body));
      before = page.next_before;
      if (before) expect(before).toBe(page.messages.at(-1)!.id);
      pages++;
    } while (before && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual([...bodies].reverse());

    const first = (await (await get(`/${general.id}/messages?limit=1`)).json()) as HistoryJson;
    expect(first.messages[0]).toMatchObject({
      room_id: general.id,
      body: 'message 6',
      sender: { type: 'member', name: 'Ada' },
    });
    expect(first.messages[0]!.sender.id).toMatch(/^mem_/);
    expect(Number.isNaN(Date.parse(first.messages[0]!.created_at))).toBe(false);
  });

  it('answers 404 for a DM, a room of another workspace and an unknown id, alike', async () => {
    for (const id of [dm.id, elsewhere.id, 'room_nope', 'x']) {
      const res = await get(`/${id}/messages`);
      expect(res.status).toBe(404);
      const body = (await res.json()) as ErrorJson;
      expect(body.error).toMatchObject({
        code: 'not_found',
        message: 'No such room in this workspace.',
      });
    }
  });

  it('answers 422 naming a bad limit or cursor', async () => {
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'limit=1.5']) {
      const res = await get(`/${general.id}/messages?${query}`);
      expect(res.status).toBe(422);
      expect(((await res.json()) as ErrorJson).error.fields).toHaveProperty('limit');
    }
    const res = await get(`/${general.id}/messages?before=not-an-id`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.fields).toHaveProperty('before');
  });

  it('needs a token with tenant:read', async () => {
    expect((await get('', null)).status).toBe(401);
    expect((await get('', 'fry_not_a_token')).status).toBe(401);
  });
});
