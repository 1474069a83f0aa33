import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox, hashSecret } from '@ferry/core';
import type { Member, Room, Workspace } from '@ferry/db';
import { sql } from 'kysely';
import {
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  startApp,
  waitUntil,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import {
  createIncomingKey,
  deleteIncomingKey,
  rotateIncomingKey,
  setIncomingKeyEnabled,
} from '@ferry/workspace';
import { findLiveKey, type LiveKey } from '../src/accept.js';
import { createWebhooksInApp } from '../src/app.js';
import type { LiveKeyCache } from '../src/key-cache.js';
import { createPostWriter, type PostWriter } from '../src/post-writer.js';

/**
 * A key cache whose change notification never arrives: what another process's cache is in the
 * moment between a key's change committing and its notification landing. It answers every key it
 * has seen from memory, forever.
 */
function staleKeyCache(ctx: TestContext): LiveKeyCache {
  const seen = new Map<string, LiveKey | undefined>();
  return {
    async find(rawKey) {
      const digest = hashSecret(rawKey);
      if (!seen.has(digest)) seen.set(digest, await findLiveKey(ctx.db, rawKey));
      return seen.get(digest);
    },
    settle: () => Promise.reject(new Error('a stale cache never hears of a change')),
    close: async () => {},
  };
}

/**
 * SPEC.md: a rotated, disabled or deleted key stops working immediately. The group commit checks
 * the batch's keys again inside its own transaction, so a cache that has not heard of the change
 * yet cannot get a post stored under a dead key.
 */
describe('a key that died while a cache still holds it', () => {
  let ctx: TestContext;
  let app: RunningApp;
  let writer: PostWriter;
  let box: SecretBox;
  let workspace: Workspace;
  let admin: Member;
  let room: Room;

  beforeAll(async () => {
    ctx = await createTestContext();
    box = new SecretBox(ctx.config.APP_SECRET);
    writer = createPostWriter(ctx.db, { logger: ctx.logger });
    const deps = {
      config: ctx.config,
      settings: { WEBHOOK_RATE_LIMIT_PER_MINUTE: 10_000 },
      db: ctx.db,
      logger: ctx.logger,
      redis: ctx.redis,
      keys: staleKeyCache(ctx),
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
    await ctx?.close();
  });

  async function post(rawKey: string, idempotencyKey?: string) {
    const res = await fetch(`${app.url}/wh/in/${rawKey}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: JSON.stringify({ body: 'deploy finished' }),
    });
    return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
  }

  /** A key created by `creator`, posted with once so the stale cache holds it. */
  async function cachedKey(creator: Member = admin) {
    const made = await createIncomingKey(ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'Deploys',
      createdBy: creator.id,
    });
    expect((await post(made.rawKey)).status).toBe(201);
    return { id: made.webhook.id, rawKey: made.rawKey };
  }

  const messagesOf = async (keyId: string) =>
    (
      await ctx.db
        .selectFrom('messages')
        .select('id')
        .where('author_kind', '=', 'webhook')
        .where('author_ref', '=', keyId)
        .execute()
    ).length;

  const idempotencyRecords = async (keyId: string) =>
    (
      await ctx.db
        .selectFrom('incoming_webhook_requests')
        .select('idempotency_key')
        .where('webhook_id', '=', keyId)
        .execute()
    ).length;

  /** The post answers 404 as an unknown key does, and leaves neither message nor record behind. */
  async function expectRefused(key: { id: string; rawKey: string }) {
    const answer = await post(key.rawKey, 'after-the-change');
    expect(answer).toEqual({
      status: 404,
      body: { error: expect.objectContaining({ code: 'not_found' }) as unknown },
    });
    expect(await messagesOf(key.id)).toBe(1);
    expect(await idempotencyRecords(key.id)).toBe(0);
  }

  it('refuses a disabled key the cache still holds: 404, nothing stored', async () => {
    const key = await cachedKey();
    await setIncomingKeyEnabled(ctx.db, room.id, key.id, false);
    await expectRefused(key);
  });

  it('refuses the old key of a rotated one, and takes the new one', async () => {
    const key = await cachedKey();
    const { rawKey: fresh } = await rotateIncomingKey(ctx.db, box, room.id, key.id);
    await expectRefused(key);
    expect((await post(fresh)).status).toBe(201);
    expect(await messagesOf(key.id)).toBe(2);
  });

  it('refuses a deleted key, and a key whose creator left the room or the workspace', async () => {
    const deleted = await cachedKey();
    await deleteIncomingKey(ctx.db, room.id, deleted.id);
    await expectRefused(deleted);

    const leaver = await createMember(ctx.db, workspace, { role: 'admin' });
    await ctx.db
      .insertInto('room_members')
      .values({ room_id: room.id, member_id: leaver.id })
      .execute();
    const leftRoom = await cachedKey(leaver);
    await ctx.db
      .updateTable('room_members')
      .set({ left_at: new Date() })
      .where('member_id', '=', leaver.id)
      .execute();
    await expectRefused(leftRoom);

    const gone = await createMember(ctx.db, workspace, { role: 'admin' });
    await ctx.db
      .insertInto('room_members')
      .values({ room_id: room.id, member_id: gone.id })
      .execute();
    const leftWorkspace = await cachedKey(gone);
    await ctx.db
      .updateTable('members')
      .set({ left_at: new Date() })
      .where('id', '=', gone.id)
      .execute();
    await expectRefused(leftWorkspace);
  });

  it('waits for a disable still being committed, then refuses the post', async () => {
    const key = await cachedKey();
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let updated = false;
    const disabling = ctx.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('incoming_webhooks')
        .set({ disabled_at: new Date() })
        .where('id', '=', key.id)
        .execute();
      updated = true;
      await committed;
    });
    try {
      await waitUntil(() => updated, 'the disable to hold its row lock');
      const answer = post(key.rawKey, 'after-the-change');
      // Without a lock on the key the post would be stored (and answered 201) before the disable
      // commits: it must queue behind the disable instead.
      await waitUntil(
        async () => (await sessionsWaitingForLocks()) > 0,
        "the post's batch to wait for the disable's row lock",
        5_000,
      );
      commit();
      await disabling;
      expect((await answer).status).toBe(404);
    } finally {
      commit();
      await disabling;
    }
    expect(await messagesOf(key.id)).toBe(1);
    expect(await idempotencyRecords(key.id)).toBe(0);
  });

  const sessionsWaitingForLocks = async () =>
    (
      await sql<{ waiting: number }>`
        select count(*)::int as waiting from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.db)
    ).rows[0]!.waiting;
});
