import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { newId } from '@ferry/core';
import {
  createTestContext,
  type TestContext,
  waitUntil,
  spawnScript,
  type ScriptProcess,
} from '@ferry/testing';
import {
  batchItems,
  createProducer,
  createRedisConnection,
  parseEvent,
  startOutboxRelay,
  writeEvent,
  type EventType,
  type Producer,
  type QueueName,
} from '../src/index.js';

/**
 * The requirement: kill the outbox relay mid-way and show every event reaches its queue
 * once or more, never zero. The relay runs in real child processes that get SIGKILLed: once at a
 * deterministic point (jobs in Redis, rows not yet marked sent) and once at an arbitrary point
 * while events are still being written.
 */
const relayScript = fileURLToPath(new URL('./support/relay-process.ts', import.meta.url));

/** Each event's queue; message_changed has none (only the live announce hears it). */
const target: Record<EventType, QueueName | undefined> = {
  message_changed: undefined,
  message_created: 'webhook-delivery',
  feedback_filed: 'agent-work',
  agent_addressed: 'agent-work',
  dispatch_requested: 'dispatch',
  error_alert_owed: 'webhook-drain',
  event_webhook_owed: 'webhook-drain',
  error_alerts_held: 'error-alerts-held',
  error_bulk_requested: 'error-bulk',
  error_handoff_requested: 'error-handoff',
};

describe('outbox relay killed mid-way', () => {
  let ctx: TestContext;
  let connection: Redis;
  let producer: Producer;
  const children: ScriptProcess[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
    connection = createRedisConnection(ctx.config.redis, { role: 'producer' });
    producer = createProducer({ connection, prefix: ctx.config.REDIS_PREFIX, logger: ctx.logger });
  });

  afterAll(async () => {
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(children.map((relay) => relay.exited));
    await producer.close();
    await connection.quit();
    await ctx.close();
  });

  function event(i: number, workspaceId: string) {
    return i % 2 === 0
      ? {
          type: 'message_created' as const,
          payload: parseEvent('message_created', {
            messageId: newId('message'),
            roomId: newId('room'),
            workspaceId,
            authorKind: 'member',
          }),
        }
      : {
          type: 'feedback_filed' as const,
          payload: parseEvent('feedback_filed', { feedbackId: newId('feedback'), workspaceId }),
        };
  }

  /** The backlog, in one multi-row insert: the same rows writeEvent makes, just faster. */
  async function insertBacklog(count: number): Promise<void> {
    const workspaceId = newId('workspace');
    const values = Array.from({ length: count }, (_, i) => {
      const { type, payload } = event(i, workspaceId);
      return { id: newId('outbox'), type, payload: JSON.stringify(payload) };
    });
    await ctx.db.insertInto('outbox').values(values).execute();
  }

  /** Events written through writeEvent while relays run, `perTransaction` per transaction. */
  async function writeEvents(count: number, perTransaction: number): Promise<void> {
    const workspaceId = newId('workspace');
    for (let done = 0; done < count; done += perTransaction) {
      await ctx.db.transaction().execute(async (trx) => {
        for (let i = done; i < Math.min(count, done + perTransaction); i++) {
          const { type, payload } = event(i, workspaceId);
          await writeEvent(trx, type, payload);
        }
      });
    }
  }

  const rows = () =>
    ctx.db.selectFrom('outbox').select(['seq', 'id', 'type', 'sent_at']).orderBy('seq').execute();
  const sentCount = async () =>
    Number(
      (
        await ctx.db
          .selectFrom('outbox')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('sent_at', 'is not', null)
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** Every job id in a queue (the relay's jobs wait: no worker runs here). */
  const jobIds = async (queue: QueueName): Promise<string[]> =>
    (await producer.queue(queue).getJobs(['waiting'], 0, -1)).map((job) => job.id!);
  /** The event ids the jobs of a queue carry: fan-out jobs carry many (relayBatchMax). */
  const relayedEventIds = async (queue: QueueName): Promise<string[]> =>
    (await producer.queue(queue).getJobs(['waiting'], 0, -1)).flatMap((job) =>
      batchItems(job.data as { eventId: string } | { batch: { eventId: string }[] }).map(
        (item) => item.eventId,
      ),
    );

  it('delivers every event to its queue at least once, never zero, across crashes', async () => {
    const BATCH = 100;
    // Start-up of a relay process is the slow part: pay it for both at once.
    const crashing = spawnScript(relayScript, {
      ...ctx.env,
      RELAY_BATCH_SIZE: String(BATCH),
      FERRY_OUTBOX_CRASH_AFTER_ENQUEUE: '3',
    });
    const killed = spawnScript(relayScript, { ...ctx.env, RELAY_BATCH_SIZE: '25' });
    children.push(crashing, killed);
    await insertBacklog(2000);
    await Promise.all(children.map((relay) => relay.ready));

    // 1. Deterministic crash: the relay dies after its 3rd batch is in Redis, before marking it.
    crashing.go();
    expect(await crashing.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const sentFlags = (await rows()).map((row) => row.sent_at !== null);
    // Exactly the first two batches were committed: a prefix, no gap...
    expect(sentFlags.slice(0, 2 * BATCH).every(Boolean)).toBe(true);
    expect(sentFlags.slice(2 * BATCH).some(Boolean)).toBe(false);
    // ...and the third batch reached Redis although its rows still say unsent.
    const enqueued =
      (await relayedEventIds('webhook-delivery')).length +
      (await relayedEventIds('agent-work')).length;
    expect(enqueued).toBe(3 * BATCH);

    // 2. A fresh relay resumes at the first unsent row while more events are being written;
    //    kill it at an arbitrary point mid-way.
    killed.go();
    const writing = writeEvents(500, 10);
    await waitUntil(async () => (await sentCount()) >= 1000, 'the second relay to make progress');
    killed.child.kill('SIGKILL');
    expect((await killed.exited).signal).toBe('SIGKILL');

    // 3. Two relays at once finish the work; SKIP LOCKED gives each row to one of them.
    const relays = [1, 2].map(() =>
      startOutboxRelay({ db: ctx.db, producer, logger: ctx.logger, pollMs: 10, batchSize: 50 }),
    );
    await writing;
    await waitUntil(async () => (await sentCount()) === 2500, 'every event to be relayed');
    await Promise.all(relays.map((relay) => relay.stop()));

    // Every event is in a job; no row is left unsent.
    const all = await rows();
    expect(all).toHaveLength(2500);
    expect(all.filter((row) => row.sent_at === null)).toEqual([]);
    for (const queue of ['webhook-delivery', 'agent-work'] as const) {
      const ids = await relayedEventIds(queue);
      const present = new Set(ids);
      const expected = all
        .filter((row) => target[row.type as EventType] === queue)
        .map((row) => row.id);
      expect(expected.filter((id) => !present.has(id))).toEqual([]); // never zero
      expect(present.size).toBe(expected.length);
      if (queue === 'agent-work') {
        // One job per event, id = event id: BullMQ ignores the re-add, so here exactly once.
        expect(ids.length).toBe(expected.length);
        expect(new Set(await jobIds(queue)).size).toBe(ids.length);
      } else {
        // Merged jobs: a batch relayed again by a relay with another batch size is another job,
        // so an event of a batch a crash left unmarked may be in two (the fan-out owes nothing
        // twice). Never more: only the rows of an unmarked batch are relayed again.
        const counts = new Map<string, number>();
        for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
        expect(Math.max(...counts.values())).toBeLessThanOrEqual(2);
      }
    }
    const sample = all[1]!;
    expect((await producer.queue('agent-work').getJob(sample.id))?.data).toMatchObject({
      eventId: sample.id,
    });
  });
});
