import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnScript, waitUntil, type ScriptProcess } from '@ferry/testing';
import { messageIdOf, startWorld, type World } from './support/world.js';

/**
 * Nothing is lost when a webhooks-out worker dies mid-delivery: the workers run in a real child
 * process that is SIGKILLed while sends are in flight (the receiver answers slowly), then a second
 * process takes over. Every message must arrive at least once; duplicates are allowed and carry
 * the same webhook-id, so a receiver can drop them.
 */
const workerScript = fileURLToPath(new URL('./support/worker-process.ts', import.meta.url));

describe('webhooks-out killed mid-delivery', () => {
  let world: World;
  const children: ScriptProcess[] = [];

  beforeAll(async () => {
    world = await startWorld(
      {
        ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        // A send lease of timeout + 5 s: the killed worker's head is re-sent about 6 s later.
        WEBHOOK_TIMEOUT_MS: '1000',
        // A send that times out (the 150 ms reply, starved past 1 s on a loaded host) is retried
        // at once, not after the production 60 s throttle that outlasted the wait below once in a
        // soak; the longer tail keeps a starved stretch of several seconds from failing a delivery.
        WEBHOOK_THROTTLE_MIN_DELAY_MS: '100',
        WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100,100,100,100,100,1000,2000,4000,8000',
        WEBHOOK_SWEEP_INTERVAL_MS: '250',
      },
      { worker: false },
    );
  });
  afterAll(async () => {
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await world?.close();
  });

  it('delivers every message at least once, with a stable webhook-id per message', async () => {
    const receiver = await world.newReceiver();
    receiver.reply({ status: 200, body: 'ok', delayMs: 150 });
    const rooms = [await world.newRoom(), await world.newRoom()];
    for (const room of rooms) await world.newHook(room, `${receiver.url}/hook`);

    const first = spawnScript(workerScript, world.ctx.env);
    children.push(first);
    await first.ready;
    const posted: string[] = [];
    for (let i = 0; i < 30; i++) posted.push(await world.post(rooms[i % 2]!, `message ${i}`));
    // Bounds below are for a hang, not a speed: in a soak run with one core kept busy, the child
    // (1 s job locks, so a killed one's jobs move on fast) had sent only 2 of these 6 after 20 s.
    await receiver.waitFor(6, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const seenAtKill = receiver.requests.length;

    const second = spawnScript(workerScript, world.ctx.env);
    children.push(second);
    await second.ready;
    const arrived = () => new Set(receiver.requests.map((r) => messageIdOf(r.body)));
    try {
      await waitUntil(() => arrived().size === posted.length, 'every message to arrive', 60_000);
    } catch (error) {
      // What a timeout saw: how far it got, and each missing message's delivery rows (none at
      // all: never fanned out; pending with a past next_attempt_at: due but not drained).
      const missing = posted.filter((id) => !arrived().has(id));
      if (!missing.length) throw error;
      const rows = await world.ctx.db
        .selectFrom('webhook_deliveries')
        .select(['message_id', 'hook_id', 'status', 'attempts', 'next_attempt_at'])
        .where('message_id', 'in', missing)
        .execute();
      const secondState = second.child.exitCode === null ? 'running' : 'exited';
      throw new Error(
        [
          `${String(error)}: ${arrived().size} of ${posted.length} arrived`,
          `${seenAtKill} requests before the kill; the second worker is ${secondState}`,
          `now ${new Date().toISOString()}; missing ${JSON.stringify(missing)}`,
          `their deliveries ${JSON.stringify(rows)}`,
        ].join('\n'),
      );
    }
    expect(seenAtKill).toBeLessThan(posted.length);
    // At least once, and a duplicate is recognisable: one webhook-id per message.
    const idsByMessage = new Map<string, Set<string>>();
    for (const request of receiver.requests) {
      const id = messageIdOf(request.body);
      const ids = idsByMessage.get(id) ?? new Set<string>();
      ids.add(String(request.headers['webhook-id']));
      idsByMessage.set(id, ids);
    }
    expect([...idsByMessage.keys()].sort()).toEqual([...posted].sort());
    for (const ids of idsByMessage.values()) expect(ids.size).toBe(1);
    await waitUntil(async () => {
      const open = await world.ctx.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '<>', 'succeeded')
        .execute();
      return open.length === 0;
    }, 'every delivery to be recorded as succeeded');
    second.child.kill('SIGTERM');
  });
});
