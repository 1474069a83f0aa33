import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { createRedisConnection } from '@ferry/queues';
import { Receiver, waitUntil } from '@ferry/testing';
import {
  loadWebhooksOutSettings,
  startWebhooksOut,
  type RunningWebhooksOut,
} from '@ferry/webhooks-out';
import {
  createEndpoint,
  eventEnvelopeSchema,
  isEventType,
  validateEndpoint,
  type EventData,
  type EventType,
} from '@ferry/workspace';
import { dispatchWorld, type DispatchWorld } from './support/world.js';

/**
 * The dispatch.* event types (issue 44) from real dispatches against the fake GitHub: the dispatch
 * service's own steps owe them, webhooks-out delivers them to loopback receivers. Every body
 * validates against its catalog schema; each subscribed endpoint gets each event exactly once,
 * in the order the dispatch moved.
 */
describe('dispatch events for event webhooks', () => {
  let world: DispatchWorld;
  let running: RunningWebhooksOut;
  let connections: ReturnType<typeof createRedisConnection>[];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    world = await dispatchWorld({
      env: {
        DISPATCH_RETRY_MS: '50',
        ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        WEBHOOK_SWEEP_INTERVAL_MS: '300',
        WEBHOOK_THROTTLE_MIN_DELAY_MS: '0',
      },
    });
    const { ctx } = world;
    connections = [
      createRedisConnection(ctx.config.REDIS_URL, { role: 'worker' }),
      createRedisConnection(ctx.config.REDIS_URL, { role: 'producer' }),
    ];
    running = startWebhooksOut({
      config: ctx.config,
      settings: loadWebhooksOutSettings(ctx.env),
      db: ctx.db,
      logger: ctx.logger,
      connection: connections[0]!,
      producerConnection: connections[1]!,
    });
  });
  afterAll(async () => {
    await running?.stop();
    for (const connection of connections ?? []) connection.disconnect();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await world?.close();
  });

  async function subscribed(eventTypes: EventType[]): Promise<Receiver> {
    const target = await new Receiver().start();
    receivers.push(target);
    const { ctx, workspace } = world;
    const input = await validateEndpoint(
      ctx.db,
      workspace.id,
      { url: `${target.url}/events`, event_types: eventTypes },
      { allowPrivateTargets: true },
    );
    await createEndpoint(ctx.db, new SecretBox(ctx.config.APP_SECRET), workspace.id, input, null);
    return target;
  }

  /** The bodies received, each checked against its type's catalog schema. */
  function bodies(target: Receiver) {
    return target.requests.map((request) => {
      const body = JSON.parse(request.body) as { type: string };
      if (!isEventType(body.type)) throw new Error(`not a catalog type: ${body.type}`);
      expect(request.headers['webhook-signature']).toMatch(/^v1,/);
      const parsed = eventEnvelopeSchema(body.type).parse(body);
      // Every dispatch.* type carries the same data: { dispatch }.
      return { type: parsed.type, data: parsed.data as EventData<'dispatch.started'> };
    });
  }

  async function dispatchToEnd(): Promise<string> {
    const ticket = await world.fileTicket();
    const res = await world.dispatch(ticket.id, world.shop.id);
    expect(res.status).toBe(202);
    let dispatchId = '';
    await waitUntil(async () => {
      const dispatch = (await world.ticket(ticket.id)).dispatches[0];
      dispatchId = dispatch?.id ?? '';
      return dispatch?.status === 'completed' || dispatch?.status === 'failed';
    }, 'the dispatch to end');
    return dispatchId;
  }

  it('a dispatch that opens a PR and completes, and one that fails, send all four types', async () => {
    const every: EventType[] = [
      'dispatch.started',
      'dispatch.pr_opened',
      'dispatch.completed',
      'dispatch.failed',
    ];
    const a = await subscribed(every);
    const b = await subscribed(every);
    const failuresOnly = await subscribed(['dispatch.failed']);

    world.fake.scriptTasks([
      'queued',
      'in_progress',
      { state: 'in_progress', pr: true },
      { state: 'completed', pr: true },
    ]);
    const done = await dispatchToEnd();
    world.fake.scriptTasks(['in_progress', { state: 'failed', error: 'the tests did not pass' }]);
    const failed = await dispatchToEnd();

    await a.waitFor(5);
    await b.waitFor(5);
    await failuresOnly.waitFor(1);
    for (const target of [a, b]) {
      const got = bodies(target);
      expect(got.map((body) => [body.type, body.data.dispatch.id])).toEqual([
        ['dispatch.started', done],
        ['dispatch.pr_opened', done],
        ['dispatch.completed', done],
        ['dispatch.started', failed],
        ['dispatch.failed', failed],
      ]);
      // One delivery each: five distinct webhook-ids, no retry or duplicate.
      expect(new Set(target.requests.map((r) => r.headers['webhook-id'])).size).toBe(5);
      const [started, prOpened, completed, , failure] = got;
      expect(started!.data.dispatch).toMatchObject({ status: 'agent_started', pr_url: null });
      expect(prOpened!.data.dispatch.pr_url).toMatch(/\/acme\/shop\/pull\/\d+$/);
      expect(completed!.data.dispatch).toMatchObject({ status: 'completed', error: null });
      expect(failure!.data.dispatch.error).toMatch(/the tests did not pass/);
    }
    const onlyFailed = bodies(failuresOnly);
    expect(onlyFailed.map((body) => [body.type, body.data.dispatch.id])).toEqual([
      ['dispatch.failed', failed],
    ]);
    // Exactly one delivery owed per subscribed endpoint and event (2 × 5 + 1), none elsewhere.
    const owed = await world.ctx.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(owed.n)).toBe(11);
  });
});
