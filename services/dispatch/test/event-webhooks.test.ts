import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { waitUntil } from '@ferry/testing';
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
 * service's own steps owe them, in each step's transaction, as delivery rows of webhooks-out's
 * stream (a service imports no other, so sending them is services/all/test/event-webhooks.test.ts's
 * part: the same rows, the same engine). Every body validates against its catalog schema; each
 * subscribed endpoint is owed each event exactly once, in the order the dispatch moved.
 */
describe('dispatch events for event webhooks', () => {
  let world: DispatchWorld;

  beforeAll(async () => {
    world = await dispatchWorld({
      env: {
        DISPATCH_RETRY_MS: '50',
      },
    });
  });
  afterAll(() => world?.close());

  /** An endpoint of the world's workspace subscribed to `eventTypes`; its hook id. */
  async function subscribed(eventTypes: EventType[], name: string): Promise<string> {
    const { ctx, workspace } = world;
    const input = await validateEndpoint(
      ctx.db,
      workspace.id,
      { url: `https://hooks.example.test/${name}`, event_types: eventTypes },
      { allowPrivateTargets: true },
    );
    const { endpoint } = await createEndpoint(
      ctx.db,
      new SecretBox(ctx.config.APP_SECRET),
      workspace.id,
      input,
      null,
    );
    return endpoint.id;
  }

  /**
   * What the endpoint is owed, in its stream's order (webhooks-out sends it in exactly this
   * order), each body checked against its type's catalog schema.
   */
  async function owed(hookId: string) {
    const rows = await world.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['event', 'body', 'status'])
      .where('hook_id', '=', hookId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => {
      const body = JSON.parse(row.body) as { type: string };
      if (!isEventType(body.type)) throw new Error(`not a catalog type: ${body.type}`);
      expect(row.event).toBe(body.type);
      expect(row.status).toBe('pending');
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

  it('a dispatch that opens a PR and completes, and one that fails, owe all four types to each subscribed endpoint, once, in order', async () => {
    const every: EventType[] = [
      'dispatch.started',
      'dispatch.pr_opened',
      'dispatch.completed',
      'dispatch.failed',
    ];
    const a = await subscribed(every, 'a');
    const b = await subscribed(every, 'b');
    const failuresOnly = await subscribed(['dispatch.failed'], 'failures');

    world.fake.scriptTasks([
      'queued',
      'in_progress',
      { state: 'in_progress', pr: true },
      { state: 'completed', pr: true },
    ]);
    const done = await dispatchToEnd();
    world.fake.scriptTasks(['in_progress', { state: 'failed', error: 'the tests did not pass' }]);
    const failed = await dispatchToEnd();

    // Each step owed its event in its own transaction: all are there once the dispatch ended.
    for (const hookId of [a, b]) {
      const got = await owed(hookId);
      expect(got.map((body) => [body.type, body.data.dispatch.id])).toEqual([
        ['dispatch.started', done],
        ['dispatch.pr_opened', done],
        ['dispatch.completed', done],
        ['dispatch.started', failed],
        ['dispatch.failed', failed],
      ]);
      const [started, prOpened, completed, , failure] = got;
      expect(started!.data.dispatch).toMatchObject({ status: 'agent_started', pr_url: null });
      expect(prOpened!.data.dispatch.pr_url).toMatch(/\/acme\/shop\/pull\/\d+$/);
      expect(completed!.data.dispatch).toMatchObject({ status: 'completed', error: null });
      expect(failure!.data.dispatch.error).toMatch(/the tests did not pass/);
    }
    const onlyFailed = await owed(failuresOnly);
    expect(onlyFailed.map((body) => [body.type, body.data.dispatch.id])).toEqual([
      ['dispatch.failed', failed],
    ]);
    // Exactly one delivery owed per subscribed endpoint and event (2 × 5 + 1), none elsewhere,
    // and the endpoints' workers were woken (webhooks-out's wake-up, through the outbox).
    const count = await world.ctx.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(11);
    const wakes = await world.ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('type', '=', 'event_webhook_owed')
      .execute();
    expect(new Set(wakes.map((w) => (w.payload as { hookId: string }).hookId))).toEqual(
      new Set([a, b, failuresOnly]),
    );
  });
});
