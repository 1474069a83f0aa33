import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Room } from '@ferry/db';
import { waitUntil } from '@ferry/testing';
import {
  claimRuns,
  oweMessages,
  type FanOutResult,
  type RunningWebhooksOut,
} from '../src/index.js';
import { messageIdOf, startWorld, startWorldWorker, type World } from './support/world.js';

/**
 * A quiet hook's new delivery is leased in the INSERT that owes it and sent by the fan-out's
 * process without a claim: the short way from post to first attempt (issue #12). Whatever the
 * lease cannot prove safe (something earlier pending, an earlier message not owed yet, two new
 * deliveries for one hook in one statement, a disabled hook) is owed due now and claimed, as before.
 */
const LEASE_MS = 15_000;

describe('leasing a hook’s head as it is owed', () => {
  let world: World;
  let running: RunningWebhooksOut | undefined;
  let stopWorker: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    world = await startWorld({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, { worker: false });
  });
  afterEach(async () => {
    await stopWorker?.();
    stopWorker = undefined;
    running = undefined;
  });
  afterAll(async () => {
    await world?.close();
  });

  function startWorker(): RunningWebhooksOut {
    const started = startWorldWorker(world);
    stopWorker = started.stop;
    running = started.running;
    return started.running;
  }

  /** A room with one hook to a receiver that is never called (oweMessages alone sends nothing). */
  async function quietHook(): Promise<{ room: Room; hookId: string }> {
    const room = await world.newRoom();
    const { hookId } = await world.newHook(room, 'http://127.0.0.1:9/never');
    return { room, hookId };
  }

  const owed = (result: FanOutResult | undefined) => {
    if (result?.kind !== 'owed') throw new Error(`expected owed, got ${JSON.stringify(result)}`);
    return result;
  };

  const nextAttemptOf = async (deliveryId: string) =>
    (
      await world.ctx.db
        .selectFrom('webhook_deliveries')
        .select(['next_attempt_at', 'status'])
        .where('id', '=', deliveryId)
        .executeTakeFirstOrThrow()
    ).next_attempt_at;

  it('leases the head of a quiet hook for the lease’s length, and hands it with the hook', async () => {
    const { room, hookId } = await quietHook();
    const messageId = await world.post(room, 'first');
    const before = Date.now();
    const [result] = await oweMessages(world.ctx.db, [messageId], { leaseMs: LEASE_MS });

    const { leased, enabledHookIds } = owed(result);
    expect(enabledHookIds).toEqual([]);
    expect(leased).toHaveLength(1);
    const [run] = leased;
    expect(run!.hook.id).toBe(hookId);
    expect(run!.hook.target_url).toBe('http://127.0.0.1:9/never');
    expect(run!.wholeStream).toBe(true);
    expect(run!.run[0].message_id).toBe(messageId);
    expect(messageIdOf(run!.run[0].body)).toBe(messageId);
    const leaseEnds = (await nextAttemptOf(run!.run[0].id))!.getTime();
    expect(leaseEnds).toBeGreaterThan(before + LEASE_MS - 2_000);
    expect(leaseEnds).toBeLessThan(Date.now() + LEASE_MS + 2_000);
  });

  it('does not lease behind a pending delivery, and owes without a lease when not asked', async () => {
    const { room, hookId } = await quietHook();
    const first = await world.post(room, 'first');
    const second = await world.post(room, 'second');
    // No lease asked: due now, for the drain to claim.
    const [plain] = await oweMessages(world.ctx.db, [first]);
    expect(owed(plain)).toEqual({ kind: 'owed', enabledHookIds: [hookId], leased: [] });

    const [behind] = await oweMessages(world.ctx.db, [second], { leaseMs: LEASE_MS });
    expect(owed(behind)).toEqual({ kind: 'owed', enabledHookIds: [hookId], leased: [] });
    const rows = await world.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['message_id', 'next_attempt_at'])
      .where('hook_id', '=', hookId)
      .execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.next_attempt_at!.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('does not lease past an earlier member message that is not owed yet (its fan-out is late)', async () => {
    const { room, hookId } = await quietHook();
    const late = await world.post(room, 'fanned out later');
    const next = await world.post(room, 'fanned out first');
    const [result] = await oweMessages(world.ctx.db, [next], { leaseMs: LEASE_MS });
    expect(owed(result)).toEqual({ kind: 'owed', enabledHookIds: [hookId], leased: [] });

    // Once the late one is owed it is the head, and is leased; the other stays behind it.
    const [head] = await oweMessages(world.ctx.db, [late], { leaseMs: LEASE_MS });
    const { leased } = owed(head);
    expect(leased.map((run) => run.run[0].message_id)).toEqual([late]);
    expect(leased[0]!.wholeStream).toBe(false);
  });

  it('does not hold a head for an earlier message that a sent delivery already overtook', async () => {
    const { room, hookId } = await quietHook();
    await world.post(room, 'its fan-out is late');
    const sent = await world.post(room, 'sent before the late one was owed');
    const next = await world.post(room, 'the next one');
    // `sent` was owed and went out; this process knows how far it sent (sent-positions.ts).
    await oweMessages(world.ctx.db, [sent]);
    const { created_at: sentAt } = await world.ctx.db
      .updateTable('webhook_deliveries')
      .set({ status: 'succeeded', next_attempt_at: null })
      .where('message_id', '=', sent)
      .returning('created_at')
      .executeTakeFirstOrThrow();
    const sentThrough = (id: string) => (id === hookId ? sentAt : undefined);
    const forgetNext = () =>
      world.ctx.db.deleteFrom('webhook_deliveries').where('message_id', '=', next).execute();

    // The late one is behind a delivery already sent: waiting for it keeps no order. Without the
    // position it is a gap, as before.
    const [held] = await oweMessages(world.ctx.db, [next], { leaseMs: LEASE_MS });
    expect(owed(held).leased).toEqual([]);
    await forgetNext();
    const [leased] = await oweMessages(world.ctx.db, [next], { leaseMs: LEASE_MS, sentThrough });
    expect(owed(leased).leased.map((run) => run.run[0].message_id)).toEqual([next]);

    // A claim starts its search at the same position.
    await forgetNext();
    await oweMessages(world.ctx.db, [next]);
    const options = { runSize: 50, leaseMs: LEASE_MS };
    const [waiting] = await claimRuns(world.ctx.db, [hookId], options);
    expect(waiting?.kind).toBe('wait');
    const [claimed] = await claimRuns(world.ctx.db, [hookId], { ...options, sentThrough });
    expect(claimed?.kind === 'claimed' && claimed.run.map((d) => d.message_id)).toEqual([next]);
  });

  it('ignores earlier messages that are not a member’s (never owed) when looking for a gap', async () => {
    const { room, hookId } = await quietHook();
    await world.post(room, 'from a bot', 'webhook');
    const messageId = await world.post(room, 'from a member');
    const [result] = await oweMessages(world.ctx.db, [messageId], { leaseMs: LEASE_MS });
    expect(owed(result).leased.map((run) => run.hook.id)).toEqual([hookId]);
  });

  it('leases neither of two new deliveries for one hook in one statement', async () => {
    const busy = await quietHook();
    const other = await quietHook();
    const ids = [await world.post(busy.room, 'one'), await world.post(busy.room, 'two')];
    const lone = await world.post(other.room, 'alone in its room');
    const [one, two, single] = await oweMessages(world.ctx.db, [...ids, lone], {
      leaseMs: LEASE_MS,
    });
    for (const result of [one, two]) {
      expect(owed(result)).toEqual({ kind: 'owed', enabledHookIds: [busy.hookId], leased: [] });
    }
    // Another hook's only new delivery of the same statement is still leased.
    expect(owed(single).leased.map((run) => run.hook.id)).toEqual([other.hookId]);
  });

  it('holds a disabled hook’s delivery without a lease', async () => {
    const { room, hookId } = await quietHook();
    await world.ctx.db
      .updateTable('outgoing_webhooks')
      .set({ state: 'disabled' })
      .where('id', '=', hookId)
      .execute();
    const messageId = await world.post(room, 'while disabled');
    const [result] = await oweMessages(world.ctx.db, [messageId], { leaseMs: LEASE_MS });
    expect(owed(result)).toEqual({ kind: 'owed', enabledHookIds: [], leased: [] });
    const row = await world.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'next_attempt_at'])
      .where('message_id', '=', messageId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'held', next_attempt_at: null });
  });

  it('sends a quiet hook’s messages one by one without a single claim, in order', async () => {
    // The hooks of the tests above have deliveries due that the sweep would claim.
    await world.ctx.db.deleteFrom('outgoing_webhooks').execute();
    const worker = startWorker();
    const room = await world.newRoom();
    const receiver = await world.newReceiver();
    const { hookId } = await world.newHook(room, `${receiver.url}/hook`);
    const succeeded = async (count: number): Promise<boolean> => {
      const rows = await world.ctx.db
        .selectFrom('webhook_deliveries')
        .select('status')
        .where('hook_id', '=', hookId)
        .execute();
      return rows.length === count && rows.every((row) => row.status === 'succeeded');
    };
    const posted: string[] = [];
    for (let i = 0; i < 12; i++) {
      posted.push(await world.post(room, `message ${i}`));
      await receiver.waitFor(i + 1, 30_000);
      // Quiet again only once the send is recorded: received but still pending, the delivery is
      // "something earlier pending", and the next one is rightly owed due now for a drain to
      // claim (a loaded host recorded one late and CI would have seen a claim).
      await waitUntil(() => succeeded(i + 1), `delivery ${i + 1} recorded as succeeded`);
    }
    expect(receiver.requests.map((request) => messageIdOf(request.body))).toEqual(posted);
    // Each went out through its fan-out's lease: no drain had to claim anything.
    expect(worker.runStats.claims.items).toBe(0);
    expect(worker.runStats.records.items).toBe(12);
    expect(running).toBe(worker);
  });
});
