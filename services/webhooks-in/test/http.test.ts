import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncomingWebhook } from '@slack/webhook';
import { SecretBox } from '@ferry/core';
import type { Member, Room, Workspace } from '@ferry/db';
import { sql } from 'kysely';
import {
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  joinRoom,
  startApp,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import {
  createIncomingKey,
  deleteIncomingKey,
  rotateIncomingKey,
  setIncomingKeyEnabled,
} from '@ferry/workspace';
import { createWebhooksInApp } from '../src/app.js';
import { createLiveKeyCache, type LiveKeyCache } from '../src/key-cache.js';

describe('POST /wh/in/:key', () => {
  let ctx: TestContext;
  let app: RunningApp;
  let box: SecretBox;
  let workspace: Workspace;
  let admin: Member & { user: { name: string } };
  let room: Room;
  let keys: LiveKeyCache;

  beforeAll(async () => {
    ctx = await createTestContext();
    box = new SecretBox(ctx.config.APP_SECRET);
    const deps = {
      config: ctx.config,
      settings: { WEBHOOK_RATE_LIMIT_PER_MINUTE: 60 },
      db: ctx.db,
      logger: ctx.logger,
      redis: ctx.redis,
      keys: createLiveKeyCache(ctx.db, {
        databaseUrl: ctx.config.DATABASE_URL,
        logger: ctx.logger,
      }),
    };
    keys = deps.keys;
    app = await startApp(createWebhooksInApp(deps, ctx.redis));
    workspace = await createWorkspace(ctx.db);
    admin = await createMember(ctx.db, workspace, { role: 'admin' });
    room = await createRoom(ctx.db, workspace, { members: [admin] });
  });
  afterAll(async () => {
    await app?.close();
    await keys?.close();
    await ctx?.close();
  });

  async function newKey(
    overrides: { name?: string; createdBy?: Member; room?: Room } = {},
  ): Promise<{ id: string; rawKey: string }> {
    const { webhook, rawKey } = await createIncomingKey(ctx.db, box, {
      workspaceId: workspace.id,
      roomId: (overrides.room ?? room).id,
      name: overrides.name ?? 'Deploy bot',
      createdBy: (overrides.createdBy ?? admin).id,
    });
    return { id: webhook.id, rawKey };
  }

  const post = (
    key: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> =>
    fetch(`${app.url}/wh/in/${key}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  /**
   * Runs a change to a key and waits for this process's commit notification: the cache answers
   * from it, and a post racing the notification by a millisecond may still see the old answer.
   */
  async function changed(run: () => Promise<unknown>): Promise<void> {
    await run();
    await keys.settle();
  }

  async function message(id: string) {
    return ctx.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function expect422(res: Response, field: string): Promise<void> {
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { code: string; fields: Record<string, string> } };
    expect(body.error.code).toBe('validation_failed');
    expect(Object.keys(body.error.fields)).toEqual([field]);
  }

  it('posts a message as the webhook: 201 {message_id}, one outbox event (the relay announces it)', async () => {
    const key = await newKey();
    const res = await post(key.rawKey, { body: 'Deploy **finished**' });
    expect(res.status).toBe(201);
    const { message_id } = (await res.json()) as { message_id: string };
    const stored = await message(message_id);
    expect(stored).toMatchObject({
      room_id: room.id,
      author_kind: 'webhook',
      author_ref: key.id,
      author_member_id: null,
      display_name: 'Deploy bot',
      body: 'Deploy **finished**',
      metadata: { webhook_id: key.id },
    });
    const events = await ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('type', '=', 'message_created')
      .where(sql<string>`payload->>'messageId'`, '=', message_id)
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({ messageId: message_id, authorKind: 'webhook' });
  });

  it('stores the key hashed and sealed, never raw', async () => {
    const key = await newKey();
    const row = await ctx.db
      .selectFrom('incoming_webhooks')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key.rawKey);
    expect(row.key_prefix).toBe(key.rawKey.slice(0, 12));
    expect(box.decrypt(row.key_sealed)).toBe(key.rawKey);
  });

  it('reads the aliases: text, name, username, room_hashid, channel; body and sender win', async () => {
    const key = await newKey();
    const other = await createRoom(ctx.db, workspace, { members: [admin] });
    const cases: [
      Record<string, unknown>,
      Partial<{ body: string; display_name: string; room_id: string }>,
    ][] = [
      [{ text: 'slack style' }, { body: 'slack style', display_name: 'Deploy bot' }],
      [{ body: 'wins', text: 'loses' }, { body: 'wins' }],
      [{ body: 'x', name: 'Named' }, { display_name: 'Named' }],
      [{ body: 'x', username: 'User' }, { display_name: 'User' }],
      [
        { body: 'x', sender: 'Sender', name: 'Named', username: 'User' },
        { display_name: 'Sender' },
      ],
      [{ body: 'x', room: other.id }, { room_id: other.id }],
      [{ body: 'x', room_hashid: other.id }, { room_id: other.id }],
      [{ body: 'x', channel: other.id }, { room_id: other.id }],
    ];
    for (const [payload, expected] of cases) {
      const res = await post(key.rawKey, payload);
      expect(res.status).toBe(201);
      const { message_id } = (await res.json()) as { message_id: string };
      expect(await message(message_id)).toMatchObject(expected);
    }
  });

  it("falls back to the key's name, then its creator's account name", async () => {
    const key = await newKey({ name: 'Alerts' });
    const first = (await (await post(key.rawKey, { body: 'a', sender: '  ' })).json()) as {
      message_id: string;
    };
    expect((await message(first.message_id)).display_name).toBe('Alerts');
    // A name cannot be blank through the UI; set one straight in the table to reach the fallback.
    // The cached key still has the old name until the change's notification drops it.
    await changed(() =>
      ctx.db.updateTable('incoming_webhooks').set({ name: ' ' }).where('id', '=', key.id).execute(),
    );
    const second = (await (await post(key.rawKey, { body: 'b' })).json()) as { message_id: string };
    expect((await message(second.message_id)).display_name).toBe(admin.user.name);
  });

  it('answers 422 naming the field, and 400 for a body that is not JSON', async () => {
    const key = await newKey();
    await expect422(await post(key.rawKey, {}), 'body');
    await expect422(await post(key.rawKey, { body: '   ' }), 'body');
    await expect422(await post(key.rawKey, { body: 42 }), 'body');
    const long = await post(key.rawKey, { body: 'x'.repeat(20_001) });
    const longBody = (await long.clone().json()) as { error: { fields: { body: string } } };
    expect(longBody.error.fields.body).toContain('20,000');
    await expect422(long, 'body');
    expect((await post(key.rawKey, { body: 'x'.repeat(20_000) })).status).toBe(201);
    await expect422(await post(key.rawKey, { body: 'x', sender: 's'.repeat(121) }), 'sender');
    expect((await post(key.rawKey, { body: 'x', sender: 's'.repeat(120) })).status).toBe(201);
    await expect422(
      await post(key.rawKey, { body: 'x', idempotency_key: 'k'.repeat(256) }),
      'idempotency_key',
    );
    await expect422(
      await post(key.rawKey, { body: 'x' }, { 'Idempotency-Key': 'k'.repeat(256) }),
      'idempotency_key',
    );
    const notJson = await post(key.rawKey, 'body=hello');
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
  });

  it('refuses a room the creator has not joined, a DM and another workspace with 422 room', async () => {
    const key = await newKey();
    const notJoined = await createRoom(ctx.db, workspace);
    const dm = await createRoom(ctx.db, workspace, { kind: 'dm', members: [admin] });
    const foreign = await createRoom(ctx.db, await createWorkspace(ctx.db), { members: [admin] });
    for (const target of [notJoined.id, dm.id, foreign.id, 'general', 'room_nope']) {
      await expect422(await post(key.rawKey, { body: 'x', room: target }), 'room');
    }
  });

  it('takes Slack and Mattermost clients as they are: a channel name in channel/room', async () => {
    const key = await newKey();
    const deploys = await createRoom(ctx.db, workspace, { name: 'deploys', members: [admin] });
    await createRoom(ctx.db, workspace, { name: 'secret-plans' });
    await createRoom(ctx.db, await createWorkspace(ctx.db), {
      name: 'elsewhere',
      members: [admin],
    });
    const slack = new IncomingWebhook(`${app.url}/wh/in/${key.rawKey}`);
    const sent = await slack.send({
      text: 'Deploy *finished*',
      channel: '#deploys',
      username: 'CI',
    });
    // The client hands back the answer's body as it parsed it.
    const { message_id } = sent.text as unknown as { message_id: string };
    expect(await message(message_id)).toMatchObject({ room_id: deploys.id, display_name: 'CI' });
    for (const channel of ['deploys', '#Deploys', ' #deploys ']) {
      const res = await post(key.rawKey, { text: 'again', channel });
      expect(res.status).toBe(201);
      const { message_id: id } = (await res.json()) as { message_id: string };
      expect((await message(id)).room_id).toBe(deploys.id);
    }
    // Where the key's creator may not post, by name as by id: not joined, another workspace.
    await expect(slack.send({ text: 'x', channel: '#secret-plans' })).rejects.toThrow(/422/);
    for (const channel of ['#elsewhere', '#', '#nope']) {
      await expect422(await post(key.rawKey, { body: 'x', channel }), 'room');
    }
  });

  it('answers the same 404 for unknown, disabled, deleted, orphaned and DM keys', async () => {
    const unknown = await post('whk_doesnotexist', { body: 'x' });
    expect(unknown.status).toBe(404);
    const reference = await unknown.text();

    const disabled = await newKey();
    await setIncomingKeyEnabled(ctx.db, room.id, disabled.id, false);
    const deleted = await newKey();
    await deleteIncomingKey(ctx.db, room.id, deleted.id);
    const leaver = await createMember(ctx.db, workspace, { role: 'admin' });
    await joinRoom(ctx.db, room, leaver);
    const leftRoom = await newKey({ createdBy: leaver });
    await ctx.db
      .updateTable('room_members')
      .set({ left_at: new Date() })
      .where('member_id', '=', leaver.id)
      .execute();
    const gone = await createMember(ctx.db, workspace, { role: 'admin' });
    await joinRoom(ctx.db, room, gone);
    const leftWorkspace = await newKey({ createdBy: gone });
    expect((await post(leftWorkspace.rawKey, { body: 'works before' })).status).toBe(201);
    await changed(() =>
      ctx.db
        .updateTable('members')
        .set({ left_at: new Date() })
        .where('id', '=', gone.id)
        .execute(),
    );

    // A key whose room is a DM (none can be made through the UI or API; the rule still holds).
    const inDm = await newKey({
      room: await createRoom(ctx.db, workspace, { kind: 'dm', members: [admin] }),
    });

    for (const key of [disabled, deleted, leftRoom, leftWorkspace, inDm]) {
      const res = await post(key.rawKey, { body: 'x' });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(reference);
    }
    // Not even a bad body changes the answer for a dead key.
    const junk = await post(disabled.rawKey, 'not json');
    expect(junk.status).toBe(404);
    expect(await junk.text()).toBe(reference);

    await changed(() => setIncomingKeyEnabled(ctx.db, room.id, disabled.id, true));
    expect((await post(disabled.rawKey, { body: 'back' })).status).toBe(201);
  });

  it('rotates: the old key stops at once, the new one works', async () => {
    const key = await newKey();
    expect((await post(key.rawKey, { body: 'before' })).status).toBe(201);
    let rawKey = '';
    await changed(async () => {
      ({ rawKey } = await rotateIncomingKey(ctx.db, box, room.id, key.id));
    });
    expect((await post(key.rawKey, { body: 'old' })).status).toBe(404);
    expect((await post(rawKey, { body: 'new' })).status).toBe(201);
  });

  it('replays an idempotency key with 200 and the original id; the header wins', async () => {
    const key = await newKey();
    const first = await post(key.rawKey, { body: 'once', idempotency_key: 'deploy-1' });
    expect(first.status).toBe(201);
    const { message_id } = (await first.json()) as { message_id: string };
    const replay = await post(key.rawKey, { body: 'once', idempotency_key: 'deploy-1' });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ message_id });
    // The header wins over the field: same header, different field -> a replay.
    const header = await post(
      key.rawKey,
      { body: 'once', idempotency_key: 'other' },
      { 'Idempotency-Key': 'deploy-1' },
    );
    expect(header.status).toBe(200);
    expect(await header.json()).toEqual({ message_id });
    // A record older than 24 h is gone: the same key posts anew.
    await sql`update incoming_webhook_requests set created_at = now() - interval '25 hours' where webhook_id = ${key.id}`.execute(
      ctx.db,
    );
    const fresh = await post(key.rawKey, { body: 'again', idempotency_key: 'deploy-1' });
    expect(fresh.status).toBe(201);
    expect(((await fresh.json()) as { message_id: string }).message_id).not.toBe(message_id);
  });

  it('posts exactly one message for 20 identical concurrent idempotent posts', async () => {
    const key = await newKey();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        post(key.rawKey, { body: 'race' }, { 'Idempotency-Key': 'race-1' }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { message_id: string },
        })),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => r.body.message_id)).size).toBe(1);
    const rows = await ctx.db
      .selectFrom('messages')
      .select('id')
      .where('author_ref', '=', key.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('answers 429 with Retry-After on the 61st post in a minute', async () => {
    const key = await newKey();
    for (let i = 0; i < 60; i++) {
      const res = await post(key.rawKey, { body: `n${i}` });
      expect(res.status).toBe(201);
    }
    const over = await post(key.rawKey, { body: 'one too many' });
    expect(over.status).toBe(429);
    const retry = Number(over.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
  });
});
