import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@ferry/testing';
import { startWorld, type World } from './support/world.js';

/**
 * Connect-time SSRF check, with ALLOW_PRIVATE_WEBHOOK_TARGETS off in the worker: hooks saved
 * earlier (as if the flag had been on, or DNS had answered a public address then) whose host
 * resolves to loopback are refused when dialled. The Receiver is real and must see nothing.
 */
describe('outgoing webhooks: connect-time SSRF refusal', () => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld({
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false',
      WEBHOOK_RETRY_SCHEDULE_MS: '0',
      WEBHOOK_SWEEP_INTERVAL_MS: '200',
    });
  });
  afterAll(async () => {
    await world?.close();
  });

  it.each([
    ['a hostname that resolves to 127.0.0.1', (port: string) => `http://localhost:${port}/hook`],
    ['an IP literal', (port: string) => `http://127.0.0.1:${port}/hook`],
    ['an IPv4-mapped IPv6 literal', (port: string) => `http://[::ffff:127.0.0.1]:${port}/hook`],
  ])('refuses %s at connect time', async (_label, target) => {
    const receiver = await world.newReceiver();
    const room = await world.newRoom();
    const port = new URL(receiver.url).port;
    const { hookId } = await world.newHook(room, target(port));
    await world.post(room, 'should never arrive');
    await waitUntil(async () => {
      const attempts = await world.ctx.db
        .selectFrom('webhook_attempts')
        .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
        .select(['webhook_attempts.error', 'webhook_attempts.status_code'])
        .where('webhook_deliveries.hook_id', '=', hookId)
        .execute();
      if (!attempts.length) return false;
      expect(attempts[0]?.status_code).toBeNull();
      expect(attempts[0]?.error).toMatch(/Refused: .* loopback/);
      return true;
    }, 'the refused attempt to be logged');
    expect(receiver.requests).toHaveLength(0);
    const delivery = await world.ctx.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('hook_id', '=', hookId)
      .executeTakeFirstOrThrow();
    // One try in this schedule: used up.
    expect(delivery.status).toBe('failed');
  });
});
