import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, SecretBox } from '@ferry/core';
import { createDb, type Member, type Room, type Workspace } from '@ferry/db';
import { toAppError } from '@ferry/http';
import { sql } from 'kysely';
import {
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  startApp,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import { createIncomingKey } from '@ferry/workspace';
import {
  findLiveKey,
  resolvePost,
  storePost,
  type IncomingPost,
  type LiveKey,
  type ResolvedPost,
} from '../src/accept.js';
import { createWebhooksInApp } from '../src/app.js';
import { createLiveKeyCache, type LiveKeyCache } from '../src/key-cache.js';
import { createPostWriter, type PostWriter } from '../src/post-writer.js';

interface Answer {
  status: number;
  body: { message_id?: string; error?: { code: string; message: string } };
  text: string;
}

describe('group commit of incoming webhook posts', () => {
  let ctx: TestContext;
  let app: RunningApp;
  let keys: LiveKeyCache;
  let writer: PostWriter;
  let box: SecretBox;
  let workspace: Workspace;
  let admin: Member;
  let room: Room;

  beforeAll(async () => {
    ctx = await createTestContext();
    box = new SecretBox(ctx.config.APP_SECRET);
    keys = createLiveKeyCache(ctx.db, { databaseUrl: ctx.config.DATABASE_URL, logger: ctx.logger });
    writer = createPostWriter(ctx.db, { logger: ctx.logger });
    const deps = {
      config: ctx.config,
      settings: { WEBHOOK_RATE_LIMIT_PER_MINUTE: 100_000 },
      db: ctx.db,
      logger: ctx.logger,
      redis: ctx.redis,
      keys,
      posts: writer,
    };
    app = await startApp(createWebhooksInApp(deps, ctx.redis));
    workspace = await createWorkspace(ctx.db);
    admin = await createMember(ctx.db, workspace, { role: 'admin' });
    room = await createRoom(ctx.db, workspace, { members: [admin] });
  });
  afterAll(async () => {
    await app?.close();
    await writer?.stop();
    await keys?.close();
    await ctx?.close();
  });

  async function newKey(name = 'Deploy bot'): Promise<{ id: string; rawKey: string }> {
    const { webhook, rawKey } = await createIncomingKey(ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      name,
      createdBy: admin.id,
    });
    return { id: webhook.id, rawKey };
  }

  async function post(
    rawKey: string,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const res = await fetch(`${app.url}/wh/in/${rawKey}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) as Answer['body'], text };
  }

  /** A post as the route hands it to the writer: validated, its room resolved. */
  async function resolved(rawKey: string, post: IncomingPost): Promise<ResolvedPost> {
    const key = await findLiveKey(ctx.db, rawKey);
    if (!key) throw new Error('no such key');
    return resolvePost(ctx.db, key, post);
  }

  async function storedMessages(ids: string[]) {
    return ctx.db.selectFrom('messages').selectAll().where('id', 'in', ids).execute();
  }

  async function messageCreatedEvents(ids: string[]) {
    return ctx.db
      .selectFrom('outbox')
      .select(sql<string>`payload->>'messageId'`.as('message_id'))
      .where('type', '=', 'message_created')
      .where(sql<string>`payload->>'messageId'`, 'in', ids)
      .execute();
  }

  it('stores 200 concurrent posts on a few keys in fewer transactions than posts', async () => {
    const webhooks = await Promise.all(['a', 'b', 'c', 'd'].map((name) => newKey(name)));
    const before = writer.stats();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        post(webhooks[i % webhooks.length]!.rawKey, { body: `post ${i}` }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 200 }, () => 201));
    const ids = answers.map((a) => a.body.message_id ?? '');
    expect(new Set(ids).size).toBe(200);

    const stored = await storedMessages(ids);
    expect(stored).toHaveLength(200);
    const bodies = new Map(stored.map((m) => [m.id, m.body]));
    ids.forEach((id, i) => expect(bodies.get(id)).toBe(`post ${i}`));
    expect(stored.every((m) => m.author_kind === 'webhook' && m.room_id === room.id)).toBe(true);
    expect(await messageCreatedEvents(ids)).toHaveLength(200);

    const after = writer.stats();
    const batches = after.batches - before.batches;
    expect(after.batchedPosts - before.batchedPosts).toBe(200);
    expect(batches).toBeLessThan(200);
    expect(after.largestBatch).toBeGreaterThan(1);
    expect(after.writtenAlone).toBe(before.writtenAlone);
  });

  it('posts exactly one message for 50 concurrent posts with the same Idempotency-Key', async () => {
    const key = await newKey();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        post(key.rawKey, { body: 'once' }, { 'Idempotency-Key': 'deploy-42' }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(49);
    const ids = new Set(answers.map((a) => a.body.message_id));
    expect(ids.size).toBe(1);
    const rows = await ctx.db
      .selectFrom('messages')
      .select('id')
      .where('author_ref', '=', key.id)
      .execute();
    expect(rows.map((r) => r.id)).toEqual([...ids]);
    expect(await messageCreatedEvents([...ids] as string[])).toHaveLength(1);
  });

  it('answers a mix of keys in one batch: new, repeated, taken, stale, none', async () => {
    const key = await newKey();
    const other = await newKey('Other');
    const taken = await writer.write(
      await resolved(key.rawKey, { body: 'taken', idempotencyKey: 'taken' }),
    );
    const stale = await writer.write(
      await resolved(key.rawKey, { body: 'old', idempotencyKey: 'stale' }),
    );
    await sql`update incoming_webhook_requests set created_at = now() - interval '25 hours'
      where webhook_id = ${key.id} and idempotency_key = 'stale'`.execute(ctx.db);

    const posts = await Promise.all([
      resolved(key.rawKey, { body: 'n1', idempotencyKey: 'new' }),
      resolved(key.rawKey, { body: 'n1 again', idempotencyKey: 'new' }),
      // The same key string on another webhook is another record.
      resolved(other.rawKey, { body: 'n1 other', idempotencyKey: 'new' }),
      resolved(key.rawKey, { body: 'taken again', idempotencyKey: 'taken' }),
      resolved(key.rawKey, { body: 'stale again', idempotencyKey: 'stale' }),
      resolved(key.rawKey, { body: 'stale twice', idempotencyKey: 'stale' }),
      resolved(key.rawKey, { body: 'no key' }),
      resolved(key.rawKey, { body: 'no key either' }),
    ]);
    const before = writer.stats();
    // Written in one turn of the event loop: one batch.
    const answers = await Promise.all(posts.map((p) => writer.write(p)));
    const after = writer.stats();
    expect(after.batches - before.batches).toBe(1);
    expect(after.largestBatch).toBeGreaterThanOrEqual(posts.length);

    const [n1, n1Again, n1Other, takenAgain, staleAgain, staleTwice, none, noneEither] = answers;
    expect(answers.map((a) => a.status)).toEqual([201, 200, 201, 200, 201, 200, 201, 201]);
    expect(n1Again?.messageId).toBe(n1?.messageId);
    expect(n1Other?.messageId).not.toBe(n1?.messageId);
    expect(takenAgain).toEqual({ status: 200, messageId: taken.messageId, roomId: room.id });
    // The stale record was replaced: claimed by this batch's first post of it.
    expect(staleAgain?.messageId).not.toBe(stale.messageId);
    expect(staleTwice?.messageId).toBe(staleAgain?.messageId);
    expect(none?.messageId).not.toBe(noneEither?.messageId);

    const record = await ctx.db
      .selectFrom('incoming_webhook_requests')
      .select(['message_id', sql<boolean>`created_at > now() - interval '1 hour'`.as('fresh')])
      .where('webhook_id', '=', key.id)
      .where('idempotency_key', '=', 'stale')
      .executeTakeFirstOrThrow();
    expect(record).toEqual({ message_id: staleAgain?.messageId, fresh: true });

    const written = [n1, n1Other, staleAgain, none, noneEither].map((a) => a?.messageId ?? '');
    const stored = await storedMessages(written);
    expect(stored.map((m) => m.body).sort()).toEqual(
      ['n1', 'n1 other', 'stale again', 'no key', 'no key either'].sort(),
    );
    expect(await messageCreatedEvents(written)).toHaveLength(5);
    // Nothing was stored for the replays.
    const replays = await ctx.db
      .selectFrom('messages')
      .select('id')
      .where('body', 'in', ['n1 again', 'taken again', 'stale twice'])
      .execute();
    expect(replays).toEqual([]);
  });

  describe('a post the database refuses', () => {
    beforeAll(async () => {
      await sql`
        create function refuse_poison() returns trigger language plpgsql as $$
        begin
          if new.body = 'poison' then raise exception 'poison refused'; end if;
          return new;
        end $$`.execute(ctx.db);
      await sql`create trigger refuse_poison before insert on messages
        for each row execute function refuse_poison()`.execute(ctx.db);
    });
    afterAll(async () => {
      await sql`drop trigger refuse_poison on messages`.execute(ctx.db);
      await sql`drop function refuse_poison()`.execute(ctx.db);
    });

    it('fails alone: its 20 batch-mates are stored, it answers 500 without details', async () => {
      const key = await newKey();
      const bodies = [
        ...Array.from({ length: 10 }, (_, i) => `good ${i}`),
        'poison',
        ...Array.from({ length: 10 }, (_, i) => `good ${i + 10}`),
      ];
      const answers = await Promise.all(
        bodies.map((body, i) =>
          post(key.rawKey, { body }, i % 2 ? { 'Idempotency-Key': `k${i}` } : {}),
        ),
      );
      const poison = answers[10];
      expect(poison?.status).toBe(500);
      expect(poison?.body.error?.code).toBe('internal');
      expect(poison?.text).not.toContain('poison refused');
      expect(poison?.text).not.toMatch(/\bat \S+:\d+/); // no stack
      const good = answers.filter((_, i) => i !== 10);
      expect(good.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 201));

      const stored = await ctx.db
        .selectFrom('messages')
        .select('body')
        .where('author_ref', '=', key.id)
        .execute();
      expect(stored.map((m) => m.body).sort()).toEqual(bodies.filter((b) => b !== 'poison').sort());
      const poisonRecord = await ctx.db
        .selectFrom('incoming_webhook_requests')
        .select('message_id')
        .where('webhook_id', '=', key.id)
        .where('idempotency_key', '=', 'k10')
        .execute();
      expect(poisonRecord).toEqual([]);
    });

    it('is isolated inside one batch: only its own write rejects', async () => {
      const key = await newKey();
      const posts = await Promise.all([
        ...Array.from({ length: 20 }, (_, i) =>
          resolved(key.rawKey, { body: `ok ${i}`, idempotencyKey: `ok-${i}` }),
        ),
        resolved(key.rawKey, { body: 'poison', idempotencyKey: 'poison' }),
      ]);
      const before = writer.stats();
      const results = await Promise.allSettled(posts.map((p) => writer.write(p)));
      const after = writer.stats();
      // The batch failed as a whole, then each post was written on its own.
      expect(after.batches).toBe(before.batches);
      expect(after.writtenAlone - before.writtenAlone).toBe(21);
      expect(results.slice(0, 20).map((r) => r.status === 'fulfilled' && r.value.status)).toEqual(
        Array.from({ length: 20 }, () => 201),
      );
      const refused = results[20];
      expect(refused?.status).toBe('rejected');
      const error = refused?.status === 'rejected' ? (refused.reason as Error) : undefined;
      expect(error?.message).toContain('poison refused');
      expect(toAppError(error).status).toBe(500);
    });
  });

  it('on stop, writes every queued post before resolving, then answers 503', async () => {
    const key = await newKey();
    const stopping = createPostWriter(ctx.db, { logger: ctx.logger, maxBatch: 7 });
    const posts = await Promise.all(
      Array.from({ length: 30 }, (_, i) => resolved(key.rawKey, { body: `queued ${i}` })),
    );
    let answered = 0;
    const writes = posts.map((p) =>
      stopping.write(p).then((accepted) => {
        answered++;
        return accepted;
      }),
    );
    await stopping.stop();
    expect(answered).toBe(30);
    const accepted = await Promise.all(writes);
    expect(accepted.every((a) => a.status === 201)).toBe(true);
    expect(await storedMessages(accepted.map((a) => a.messageId))).toHaveLength(30);
    expect(stopping.stats().batches).toBeGreaterThanOrEqual(5); // at most 7 per batch

    const late = stopping.write(posts[0]!);
    await expect(late).rejects.toBeInstanceOf(AppError);
    await expect(late).rejects.toMatchObject({ status: 503 });
  });

  it('answers what the single-post path answers when the database is unreachable', async () => {
    const unreachable = createDb('postgres://ferry@127.0.0.1:1/ferry', { max: 2 });
    const down = createPostWriter(unreachable, { logger: ctx.logger });
    const key: LiveKey = {
      id: 'whk_x',
      keyHash: 'x',
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'x',
      createdBy: admin.id,
      creatorName: 'x',
    };
    const posts = Array.from({ length: 5 }, (_, i) => ({
      key,
      roomId: room.id,
      post: { body: `down ${i}`, ...(i % 2 ? { idempotencyKey: `d${i}` } : {}) },
    }));
    try {
      const single = await storePost(unreachable, posts[0]!).catch((error: unknown) => error);
      expect(single).toMatchObject({ code: 'ECONNREFUSED' });
      const results = await Promise.allSettled(posts.map((p) => down.write(p)));
      for (const result of results) {
        expect(result.status).toBe('rejected');
        const reason = result.status === 'rejected' ? (result.reason as unknown) : undefined;
        expect(reason).toMatchObject({ code: (single as { code?: string }).code });
        expect(toAppError(reason).toJSON()).toEqual(toAppError(single).toJSON());
      }
    } finally {
      await down.stop();
      await unreachable.destroy();
    }
  });
});
