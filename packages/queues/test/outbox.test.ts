import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import { newId } from '@ferry/core';
import { listen } from '@ferry/db';
import { createOutboxEvent, createTestContext, type TestContext, waitUntil } from '@ferry/testing';
import {
  batchItems,
  createOutboxRelay,
  createProducer,
  createRedisConnection,
  InvalidPayloadError,
  OUTBOX_CHANNEL,
  startOutboxRelay,
  safeParseJob,
  writeEvent,
  writeEvents,
  type JobPayload,
  type OutboxRelay,
  type Producer,
} from '../src/index.js';

const message = () => ({
  messageId: newId('message'),
  roomId: newId('room'),
  workspaceId: newId('workspace'),
  authorKind: 'member' as const,
});

describe('outbox', () => {
  let ctx: TestContext;
  let connection: Redis;
  let producer: Producer;
  let relay: OutboxRelay;

  beforeAll(async () => {
    ctx = await createTestContext();
    connection = createRedisConnection(ctx.config.redis, { role: 'producer' });
    producer = createProducer({ connection, prefix: ctx.config.REDIS_PREFIX, logger: ctx.logger });
    relay = createOutboxRelay({ db: ctx.db, producer, logger: ctx.logger, batchSize: 50 });
  });

  afterEach(async () => {
    await ctx.db.deleteFrom('outbox').execute();
    for (const name of ['webhook-delivery', 'agent-work'] as const) {
      await producer.queue(name).obliterate({ force: true });
    }
  });

  afterAll(async () => {
    await producer.close();
    await connection.quit();
    await ctx.close();
  });

  const unsent = async () =>
    (await ctx.db.selectFrom('outbox').select('id').where('sent_at', 'is', null).execute()).map(
      (row) => row.id,
    );

  it('enqueues nothing for an event whose transaction rolled back', async () => {
    let eventId = '';
    await expect(
      ctx.db.transaction().execute(async (trx) => {
        eventId = await writeEvent(trx, 'message_created', message());
        throw new Error('the message insert failed');
      }),
    ).rejects.toThrow('the message insert failed');
    expect(eventId).toMatch(/^evt_/);
    expect(await relay.drainOnce()).toBe(0);
    expect(await producer.queue('webhook-delivery').getJob(eventId)).toBeUndefined();
    expect(await producer.queue('webhook-delivery').count()).toBe(0);
  });

  it('relays messages by webhooks, agents and the system without a webhook-delivery job (loop guard)', async () => {
    const kinds = ['webhook', 'agent', 'system'] as const;
    const events = await ctx.db
      .transaction()
      .execute(async (trx) =>
        Promise.all(
          kinds.map((authorKind) =>
            writeEvent(trx, 'message_created', { ...message(), authorKind }),
          ),
        ),
      );
    expect(await relay.drainOnce()).toBe(3);
    expect(await unsent()).toEqual([]);
    for (const eventId of events) {
      expect(await producer.queue('webhook-delivery').getJob(eventId)).toBeUndefined();
    }
    expect(await producer.queue('webhook-delivery').count()).toBe(0);
  });

  it('enqueues exactly one job per target queue, with jobId = event id, for a committed event', async () => {
    const sent = message();
    const { messageEvent, feedbackEvent } = await ctx.db.transaction().execute(async (trx) => ({
      messageEvent: await writeEvent(trx, 'message_created', sent),
      feedbackEvent: await writeEvent(trx, 'feedback_filed', {
        feedbackId: newId('feedback'),
        workspaceId: sent.workspaceId,
      }),
    }));
    expect(await relay.drainOnce()).toBe(2);
    expect(await relay.drainOnce()).toBe(0);
    expect(await unsent()).toEqual([]);

    const delivery = await producer.queue('webhook-delivery').getJob(messageEvent);
    expect(delivery?.name).toBe('webhook-delivery');
    expect(delivery?.data).toEqual({
      eventId: messageEvent,
      messageId: sent.messageId,
      roomId: sent.roomId,
      workspaceId: sent.workspaceId,
    });
    expect(await producer.queue('agent-work').getJob(feedbackEvent)).toBeDefined();
    expect(await producer.queue('webhook-delivery').count()).toBe(1);
    expect(await producer.queue('agent-work').count()).toBe(1);

    // Relayed again (as after a crash before the mark): BullMQ keeps the one job.
    await ctx.db.updateTable('outbox').set({ sent_at: null }).execute();
    expect(await relay.drainOnce()).toBe(2);
    expect(await producer.queue('webhook-delivery').count()).toBe(1);
    expect(await producer.queue('agent-work').count()).toBe(1);
  });

  it('relays a backlog of message events as fan-out jobs of many messages, per workspace, in order', async () => {
    // 110 messages of one workspace, with 10 of another's among them.
    const workspaceId = newId('workspace');
    const other = newId('workspace');
    const messages = Array.from({ length: 120 }, (_, i) => ({
      ...message(),
      workspaceId: i % 12 === 5 ? other : workspaceId,
    }));
    const eventIds = await writeEvents(
      ctx.db,
      messages.map((payload) => ({ type: 'message_created' as const, payload })),
    );
    // batchSize 50: three wakes, each one job per workspace of what it read (the batch limit is
    // 100); the payload names its workspace, as a single message's does.
    while ((await relay.drainOnce()) > 0);
    const jobs = await producer.queue('webhook-delivery').getJobs(['waiting']);
    const batches = jobs
      .map((job) => {
        const data = job.data as JobPayload<'webhook-delivery'>;
        return { id: job.id, workspaceId: data.workspaceId, items: batchItems(data) };
      })
      .sort((a, b) => a.items[0]!.eventId.localeCompare(b.items[0]!.eventId));
    const inOrder = (ws: string) =>
      batches.filter((batch) => batch.workspaceId === ws).flatMap((batch) => batch.items);
    expect(inOrder(workspaceId).map((item) => item.messageId)).toEqual(
      messages.filter((m) => m.workspaceId === workspaceId).map((m) => m.messageId),
    );
    expect(inOrder(other).map((item) => item.eventId)).toEqual(
      eventIds.filter((_, i) => messages[i]!.workspaceId === other),
    );
    for (const batch of batches) {
      expect(batch.items.every((item) => item.workspaceId === batch.workspaceId)).toBe(true);
    }
    // Wakes of 50 rows: 46 + 4, 46 + 4, 18 + 2. (A lone message's job keeps the event id as its
    // id: the test above.)
    expect(batches.map((batch) => batch.items.length).sort((a, b) => a - b)).toEqual([
      2, 4, 4, 18, 46, 46,
    ]);
    expect(batches[0]!.id).toBe(`${eventIds[0]}-batch-46`);

    // Relayed again (a crash before the mark): the same jobs, which BullMQ already has.
    await ctx.db.updateTable('outbox').set({ sent_at: null }).execute();
    while ((await relay.drainOnce()) > 0);
    expect(await producer.queue('webhook-delivery').count()).toBe(6);
  });

  it('refuses a merged fan-out job whose items are of another workspace', () => {
    const one = { ...message(), eventId: newId('outbox') };
    const parsed = safeParseJob('webhook-delivery', {
      workspaceId: newId('workspace'),
      batch: [one],
    });
    expect(parsed.success).toBe(false);
  });

  it('checks error-ingest reports are objects without copying them (issue 48)', () => {
    const report = { id: 'x', message: 'boom' };
    const parsed = safeParseJob('error-ingest', {
      workspaceId: newId('workspace'),
      reports: [report],
    });
    expect(parsed.success && parsed.data.reports[0]).toBe(report);
    for (const bad of ['a report', null, [report]]) {
      const refused = safeParseJob('error-ingest', {
        workspaceId: newId('workspace'),
        reports: [bad],
      });
      expect(refused.success).toBe(false);
    }
  });

  it('refuses to write an invalid event', async () => {
    await expect(
      writeEvent(ctx.db, 'feedback_filed', {
        feedbackId: 'fbk_nope',
        workspaceId: newId('workspace'),
      }),
    ).rejects.toThrow(InvalidPayloadError);
    expect(await ctx.db.selectFrom('outbox').select('id').execute()).toEqual([]);
  });

  it('sets aside a known event with an invalid payload without blocking the rest', async () => {
    const bad = await createOutboxEvent(ctx.db, {
      type: 'message_created',
      payload: { messageId: 42 },
    });
    const good = await writeEvent(ctx.db, 'message_created', message());
    expect(await relay.drainOnce()).toBe(2);
    expect(await unsent()).toEqual([]);
    expect(await producer.queue('webhook-delivery').getJob(bad.id)).toBeUndefined();
    expect(await producer.queue('webhook-delivery').getJob(good)).toBeDefined();
  });

  it('leaves events of an unknown type unsent, for a relay that knows them, without blocking', async () => {
    const small = createOutboxRelay({ db: ctx.db, producer, logger: ctx.logger, batchSize: 2 });
    const future = [];
    for (let i = 0; i < 3; i++)
      future.push((await createOutboxEvent(ctx.db, { type: 'future' })).id);
    const good = await writeEvent(ctx.db, 'message_created', message());
    expect(await small.drainOnce()).toBe(1);
    expect(await producer.queue('webhook-delivery').getJob(good)).toBeDefined();
    expect((await unsent()).sort()).toEqual(future.sort());
  });

  it('prunes rows sent more than seven days ago, and only those', async () => {
    const old = await createOutboxEvent(ctx.db, { type: 'message_created', sent: true });
    const recent = await createOutboxEvent(ctx.db, { type: 'message_created', sent: true });
    const waiting = await createOutboxEvent(ctx.db, { type: 'future' });
    await ctx.db
      .updateTable('outbox')
      .set({ sent_at: sql<Date>`now() - interval '8 days'` })
      .where('id', '=', old.id)
      .execute();
    expect(await relay.maintain()).toBe(1);
    const left = await ctx.db.selectFrom('outbox').select('id').orderBy('seq').execute();
    expect(left.map((row) => row.id)).toEqual([recent.id, waiting.id]);
  });

  it('rolls back and retries when Redis does not answer, losing nothing', async () => {
    // A "Redis" that accepts connections and never answers: adds hang until the relay gives up.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const hung = createRedisConnection(
      { mode: 'direct', url: `redis://127.0.0.1:${port}/0` },
      { role: 'producer' },
    );
    const stuck = createProducer({ connection: hung, prefix: ctx.config.REDIS_PREFIX });
    const eventId = await writeEvent(ctx.db, 'message_created', message());
    try {
      const failing = createOutboxRelay({
        db: ctx.db,
        producer: stuck,
        logger: ctx.logger,
        enqueueTimeoutMs: 100,
      });
      await expect(failing.drainOnce()).rejects.toThrow(/timed out after 100 ms/);
      expect(await unsent()).toEqual([eventId]);
    } finally {
      hung.disconnect();
      await stuck.close().catch(() => undefined);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
    expect(await relay.drainOnce()).toBe(1);
    expect(await producer.queue('webhook-delivery').getJob(eventId)).toBeDefined();
  });

  it('is woken by the commit (LISTEN/NOTIFY), not by its poll', async () => {
    // A poll of a minute: only the notification of the commit can make this relay look again.
    // The listener connects in the background and calls once without a payload when its LISTEN
    // is in place (the catch-up after a connect), nudging the relay. Once the relay has drained
    // after that and gone to sleep for its minute, only a commit's notification can wake it.
    let caughtUp = false;
    let asleepAfterCatchUp = false;
    const running = startOutboxRelay({
      db: ctx.db,
      producer,
      logger: ctx.logger,
      pollMs: 60_000,
      onSleep: () => {
        if (caughtUp) asleepAfterCatchUp = true;
      },
    });
    const listener = listen(ctx.config.DATABASE_URL, OUTBOX_CHANNEL, (payload) => {
      if (payload === undefined) caughtUp = true;
      running.nudge();
    });
    try {
      await waitUntil(
        () => asleepAfterCatchUp,
        'the LISTEN to be in place and the relay asleep after the drain it nudged',
      );
      const started = Date.now();
      const eventId = await ctx.db
        .transaction()
        .execute((trx) => writeEvent(trx, 'message_created', message()));
      await waitUntil(
        async () => (await producer.queue('webhook-delivery').getJob(eventId)) !== undefined,
        'the notification to wake the relay',
        10_000,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await listener.close();
      await running.stop();
    }
  });

  it('relays commits that nudge it within gatherMs of a batch together, and a first one at once', async () => {
    const batches: number[] = [];
    let asleep = false;
    const running = startOutboxRelay({
      db: ctx.db,
      producer,
      logger: ctx.logger,
      pollMs: 60_000,
      // Long enough for five commits on a slow host; the loop waits it after every batch.
      gatherMs: 1_000,
      onSleep: () => (asleep = true),
      onRelayed: (events) => batches.push(events.length),
    });
    const commit = async () => {
      await ctx.db.transaction().execute((trx) => writeEvent(trx, 'message_created', message()));
      running.nudge();
    };
    try {
      await waitUntil(() => asleep, 'the relay to find the outbox empty and go to sleep');
      await commit();
      await waitUntil(() => batches.length === 1, 'the first commit to be relayed at once');
      for (let i = 0; i < 5; i++) await commit();
      await waitUntil(
        () => batches.reduce((sum, n) => sum + n, 0) === 6,
        'the five commits made while it gathered to be relayed',
      );
      expect(batches).toEqual([1, 5]);
    } finally {
      await running.stop();
    }
  });

  it('runs as a loop that picks up new events and stops cleanly', async () => {
    const running = startOutboxRelay({ db: ctx.db, producer, logger: ctx.logger, pollMs: 10 });
    try {
      const eventId = await ctx.db
        .transaction()
        .execute((trx) => writeEvent(trx, 'message_created', message()));
      await waitUntil(
        async () => (await producer.queue('webhook-delivery').getJob(eventId)) !== undefined,
        'the loop to relay the event',
      );
      await waitUntil(async () => (await unsent()).length === 0, 'the row to be marked sent');
    } finally {
      await running.stop();
    }
  });
});
