import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  entryCommand,
  killAll,
  startService,
  waitUntil,
  type ServiceProcess,
} from '@ferry/testing';
import { messageIdOf, startWorld, type World } from './support/world.js';

/**
 * SIGTERM to webhooks-out (services/webhooks-out/src/main.ts, as compose runs it) while sends are
 * in flight (the receiver answers slowly): it exits 0 well within onShutdown's 25 s, and a fresh
 * process delivers the rest. Every message owed arrives, and since the stopped process finished
 * its active sends and recorded them, none arrives twice (a duplicate would only be allowed after
 * a send lease expired, which a drain never leaves behind).
 */
describe('webhooks-out drains on SIGTERM', () => {
  let world: World;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    world = await startWorld(
      {
        ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        // Each message must arrive exactly once here, so a send must not time out on a loaded
        // host (the reply takes 150 ms) and be sent again; if one does anyway, its retry comes at
        // once, not after the production 60 s throttle, which would outlast the wait below.
        WEBHOOK_TIMEOUT_MS: '5000',
        WEBHOOK_THROTTLE_MIN_DELAY_MS: '100',
        WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100,100,100,100,100',
        WEBHOOK_SWEEP_INTERVAL_MS: '250',
      },
      { worker: false },
    );
  });
  afterAll(async () => {
    await killAll(processes);
    await world?.close();
  });

  it('finishes its sends, and a fresh process delivers the rest, each once', async () => {
    const command = entryCommand('services/webhooks-out/src/main.ts');
    const first = await startService({ command, env: world.ctx.env });
    processes.push(first);
    const receiver = await world.newReceiver();
    receiver.reply({ status: 200, body: 'ok', delayMs: 150 });
    const rooms = [await world.newRoom(), await world.newRoom(), await world.newRoom()];
    for (const room of rooms) await world.newHook(room, `${receiver.url}/hook`);
    const posted: string[] = [];
    for (let i = 0; i < 30; i++) posted.push(await world.post(rooms[i % 3]!, `message ${i}`));
    await receiver.waitFor(6, 30_000);

    const exit = await first.terminate();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(10_000);

    const fresh = await startService({ command, env: world.ctx.env });
    processes.push(fresh);
    await waitUntil(
      () => new Set(receiver.requests.map((r) => messageIdOf(r.body))).size === posted.length,
      'every message to arrive',
      40_000,
    );
    await waitUntil(async () => {
      const open = await world.ctx.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '<>', 'succeeded')
        .execute();
      return open.length === 0;
    }, 'every delivery to be recorded as succeeded');
    const webhookIds = receiver.requests.map((request) => String(request.headers['webhook-id']));
    expect(new Set(webhookIds).size).toBe(posted.length);
    expect(webhookIds).toHaveLength(posted.length);
    expect(await fresh.terminate()).toMatchObject({ code: 0 });
  });
});
