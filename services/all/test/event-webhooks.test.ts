import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { newId, SecretBox } from '@ferry/core';
import type { Member, Room, Workspace } from '@ferry/db';
import {
  fingerprint,
  parseBatch,
  parseJob,
  writeErrorBatch,
  type WriteErrorsDeps,
} from '@ferry/ingest-errors';
import { markStreamClosed, markStreamOpen } from '@ferry/agent-gateway';
import { createRedisConnection, runOutboxRelay, type JobPayload } from '@ferry/queues';
import {
  createApiToken,
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  Receiver,
  waitUntil,
  type TestContext,
} from '@ferry/testing';
import {
  loadWebhooksOutSettings,
  startWebhooksOut,
  type RunningWebhooksOut,
} from '@ferry/webhooks-out';
import {
  assignErrorGroup,
  catalogJson,
  createEndpoint,
  eventEnvelopeSchema,
  EVENT_TYPES,
  fileFeedback,
  isEventType,
  postMessage,
  recoverFailedDeliveries,
  registerAgent,
  rotateEndpointSecret,
  saveErrorAlertRules,
  setErrorGroupStatus,
  triageFeedback,
  validateEndpoint,
  validateErrorAlertRules,
  type EventType,
} from '@ferry/workspace';

/**
 * Workspace event webhooks end to end (issue 44 part 2): real actions (the error writer, triage,
 * assignment, filing and triaging feedback, a member's message, an agent's stream opening and
 * closing) owe events in their own transactions; the real outbox relay and webhooks-out workers
 * deliver them to loopback receivers; every delivery is verified with the Standard Webhooks
 * reference library and with Svix's, and every payload is checked against its catalog schema.
 */
describe('event webhooks', () => {
  let ctx: TestContext;
  let box: SecretBox;
  let relay: { stop(): Promise<void> };
  let running: RunningWebhooksOut;
  let connections: ReturnType<typeof createRedisConnection>[];
  let deps: WriteErrorsDeps;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    ctx = await createTestContext({
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      WEBHOOK_SWEEP_INTERVAL_MS: '300',
      WEBHOOK_TIMEOUT_MS: '2000',
      // A failed try comes back after 200 ms, then 200 ms; then the delivery has failed.
      WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200',
      WEBHOOK_THROTTLE_MIN_DELAY_MS: '0',
    });
    box = new SecretBox(ctx.config.APP_SECRET);
    relay = runOutboxRelay({ db: ctx.db, config: ctx.config, logger: ctx.logger });
    const connection = createRedisConnection(ctx.config.redis, { role: 'worker' });
    const producerConnection = createRedisConnection(ctx.config.redis, { role: 'producer' });
    connections = [connection, producerConnection];
    running = startWebhooksOut({
      config: ctx.config,
      settings: loadWebhooksOutSettings(ctx.env),
      db: ctx.db,
      logger: ctx.logger,
      connection,
      producerConnection,
    });
    deps = {
      db: ctx.db,
      logger: ctx.logger,
      retentionLimit: 1_000_000,
      random: () => 1,
      publicUrl: 'http://ferry.test',
    };
  });
  afterAll(async () => {
    await relay?.stop();
    await running?.stop();
    for (const connection of connections ?? []) connection.disconnect();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await ctx?.close();
  });

  async function receiver(): Promise<Receiver> {
    const started = await new Receiver().start();
    receivers.push(started);
    return started;
  }

  async function endpoint(
    workspace: Workspace,
    url: string,
    body: Record<string, unknown>,
  ): Promise<{ id: string; secret: string }> {
    const input = await validateEndpoint(
      ctx.db,
      workspace.id,
      { url, ...body },
      {
        allowPrivateTargets: true,
      },
    );
    const { endpoint: created, secret } = await createEndpoint(
      ctx.db,
      box,
      workspace.id,
      input,
      null,
    );
    return { id: created.id, secret };
  }

  function report(errorClass: string, environment = 'production') {
    return {
      error_class: errorClass,
      message: `${errorClass} happened`,
      backtrace: [`app/models/${errorClass}.rb:12:in \`save\``],
      environment,
    };
  }

  function writeErrors(workspaceId: string, raw: Record<string, unknown>[]) {
    const payload: JobPayload<'error-ingest'> = {
      workspaceId,
      visitorId: null,
      receivedAt: new Date().toISOString(),
      reports: parseBatch({ errors: raw }, new Date()).reports.map((parsed) => ({
        ...parsed,
        id: newId('errorOccurrence'),
        fingerprint: fingerprint(parsed),
      })),
    };
    return writeErrorBatch(deps, [parseJob(payload)]);
  }

  const groupOf = (workspaceId: string, errorClass: string) =>
    ctx.db
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('error_class', '=', errorClass)
      .executeTakeFirstOrThrow();

  function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(headers)) {
      if (typeof value === 'string') out[key] = value;
    }
    return out;
  }

  interface Delivered {
    id: string;
    type: EventType;
    data: Record<string, unknown>;
  }

  /**
   * Each request verified with both libraries (they throw on a bad signature or a stale
   * timestamp) and its body against its type's catalog schema.
   */
  function verified(target: Receiver, secret: string): Delivered[] {
    return target.requests.map((request) => {
      const headers = stringHeaders(request.headers);
      new StandardWebhook(secret).verify(request.body, headers);
      new SvixWebhook(secret).verify(request.body, headers);
      const body = JSON.parse(request.body) as { type: string; data: Record<string, unknown> };
      expect(isEventType(body.type)).toBe(true);
      const type = body.type as EventType;
      expect(headers['x-service-event']).toBe(type);
      eventEnvelopeSchema(type).parse(body);
      return { id: headers['webhook-id']!, type, data: body.data };
    });
  }

  async function people(): Promise<{ workspace: Workspace; admin: Member; room: Room }> {
    const workspace = await createWorkspace(ctx.db);
    const admin = await createMember(ctx.db, workspace, { role: 'admin' });
    const room = await createRoom(ctx.db, workspace, { members: [admin], name: 'general' });
    return { workspace, admin, room };
  }

  it('publishes every type of the catalog as JSON Schema', () => {
    const catalog = catalogJson();
    expect(catalog.map((entry) => entry.type)).toEqual(EVENT_TYPES);
    for (const entry of catalog) {
      expect(entry.schema).toMatchObject({ type: 'object' });
      expect(entry.schema.properties).toMatchObject({ type: { const: entry.type } });
    }
  });

  // dispatch.* come from real dispatches against the fake GitHub (services/dispatch/test/
  // event-webhooks.test.ts); agent.* from real SSE streams there too (services/agent-gateway/test/
  // event-webhooks.test.ts). Here the agent's stream functions stand in for the gateway.
  it('every event type but dispatch.* comes from its real action, once per subscribed endpoint, and validates', async () => {
    const { workspace, admin, room } = await people();
    const everything = EVENT_TYPES.filter((type) => !type.startsWith('dispatch.'));
    const a = await receiver();
    const b = await receiver();
    const all1 = await endpoint(workspace, `${a.url}/all`, {
      event_types: everything,
      room_ids: [room.id],
    });
    const all2 = await endpoint(workspace, `${b.url}/all`, {
      event_types: everything,
      room_ids: [room.id],
    });
    // Subscribed to other types only, or filtered out: receives nothing of these.
    const c = await receiver();
    await endpoint(workspace, `${c.url}/staging-only`, {
      event_types: ['error.group.created'],
      environments: ['staging'],
    });

    await writeErrors(workspace.id, [report('CardDeclined')]);
    const group = await groupOf(workspace.id, 'CardDeclined');
    await setErrorGroupStatus(ctx.db, workspace.id, group.id, 'resolved', {
      type: 'member',
      id: admin.id,
      name: 'Admin',
    });
    await writeErrors(workspace.id, [report('CardDeclined')]);
    await assignErrorGroup(ctx.db, {
      workspaceId: workspace.id,
      groupId: group.id,
      actor: { kind: 'api' },
      assigneeId: admin.id,
    });
    const ticket = await fileFeedback(ctx.db, workspace.id, {
      note: 'The button is broken',
      title: null,
    });
    await triageFeedback(ctx.db, {
      workspaceId: workspace.id,
      feedbackId: ticket.id,
      actor: { kind: 'api' },
      change: { status: 'triaged', assignee_id: admin.id },
    });
    await postMessage(ctx.db, {
      roomId: room.id,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: admin.id,
      displayName: 'Admin',
      body: 'hello endpoints',
    });
    // A webhook's message is never sent (loop guard).
    await postMessage(ctx.db, {
      roomId: room.id,
      workspaceId: workspace.id,
      authorKind: 'webhook',
      authorRef: 'key',
      displayName: 'CI',
      body: 'from a webhook',
    });
    const token = await createApiToken(ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const agent = await registerAgent(ctx.db, {
      workspaceId: workspace.id,
      installId: 'install-0001',
      name: 'builder',
      project: 'app',
      tokenId: token.id,
    });
    await markStreamOpen(ctx.db, agent);
    // Already connected: a second stream is no new event.
    await markStreamOpen(ctx.db, agent);
    await markStreamClosed(ctx.db, agent);

    await a.waitFor(everything.length);
    await b.waitFor(everything.length);
    const gotA = verified(a, all1.secret);
    const gotB = verified(b, all2.secret);
    // In the order the actions happened, one each.
    const expected: EventType[] = [
      'error.group.created',
      'error.group.resolved',
      'error.group.regressed',
      'error.group.assigned',
      'feedback.created',
      'feedback.triaged',
      'feedback.assigned',
      'message.created',
      'agent.connected',
      'agent.disconnected',
    ];
    expect(gotA.map((d) => d.type)).toEqual(expected);
    expect(gotB.map((d) => d.type)).toEqual(expected);
    expect(new Set(expected)).toEqual(new Set(everything));
    // One delivery (webhook-id) per endpoint per event.
    expect(new Set([...gotA, ...gotB].map((d) => d.id)).size).toBe(expected.length * 2);
    expect(gotA[0]!.data).toMatchObject({
      group: { id: group.id, error_class: 'CardDeclined', environments: ['production'] },
      environment: 'production',
    });
    expect(gotA[7]!.data).toMatchObject({ message: { body: 'hello endpoints', room_id: room.id } });
    expect(c.requests).toHaveLength(0);
  });

  it('feedback.triaged fires on every status change with the new status; a regression shows the group’s environments after the write', async () => {
    const { workspace } = await people();
    const target = await receiver();
    const { secret } = await endpoint(workspace, `${target.url}/edges`, {
      event_types: ['feedback.triaged', 'error.group.regressed'],
    });
    const ticket = await fileFeedback(ctx.db, workspace.id, { note: 'edges', title: null });
    for (const status of ['triaged', 'closed', 'new'] as const) {
      await triageFeedback(ctx.db, {
        workspaceId: workspace.id,
        feedbackId: ticket.id,
        actor: { kind: 'api' },
        change: { status, assignee_id: undefined },
      });
    }
    // A change that changes nothing is no event.
    await triageFeedback(ctx.db, {
      workspaceId: workspace.id,
      feedbackId: ticket.id,
      actor: { kind: 'api' },
      change: { status: 'new', assignee_id: undefined },
    });
    // Seen in staging, resolved, back in production: the group has been in both.
    await writeErrors(workspace.id, [report('Edge', 'staging')]);
    const group = await groupOf(workspace.id, 'Edge');
    await setErrorGroupStatus(ctx.db, workspace.id, group.id, 'resolved', {
      type: 'member',
      id: null,
      name: 'Admin',
    });
    await writeErrors(workspace.id, [report('Edge', 'production')]);
    await target.waitFor(4);
    const got = verified(target, secret);
    expect(
      got.slice(0, 3).map((d) => {
        const data = d.data as { ticket: { status: string }; previous_status: string };
        return [d.type, data.previous_status, data.ticket.status];
      }),
    ).toEqual([
      ['feedback.triaged', 'new', 'triaged'],
      ['feedback.triaged', 'triaged', 'closed'],
      ['feedback.triaged', 'closed', 'new'],
    ]);
    expect(got[3]).toMatchObject({
      type: 'error.group.regressed',
      data: {
        group: { id: group.id, environments: ['production', 'staging'] },
        environment: 'production',
      },
    });
    expect(got).toHaveLength(4);
  });

  it('paces an endpoint with max_per_second = 5: 30 events arrive over ≥ 5.8 s, no more than 5 a second', async () => {
    const { workspace } = await people();
    const target = await receiver();
    await endpoint(workspace, `${target.url}/paced`, {
      event_types: ['feedback.created'],
      max_per_second: 5,
    });
    // 30 tickets filed back to back (a few ms each): far faster than 5 a second.
    for (let i = 0; i < 30; i++) {
      await fileFeedback(ctx.db, workspace.id, { note: `paced ${i}`, title: null });
    }
    await target.waitFor(30, 20_000);
    const times = target.requests.map((request) => request.receivedAt);
    // The pacer spaces send starts 200 ms apart; arrivals carry the network's jitter (a few ms
    // either way), so: the whole spread, and no second holding more than 5 (+1 for that jitter).
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(29 * 200 - 50);
    const busiest = Math.max(
      ...times.map((start) => times.filter((time) => time >= start && time < start + 1000).length),
    );
    expect(busiest).toBeLessThanOrEqual(6);
    const notes = target.requests.map(
      (request) =>
        (JSON.parse(request.body) as { data: { ticket: { note: string } } }).data.ticket.note,
    );
    expect(notes).toEqual(Array.from({ length: 30 }, (_, i) => `paced ${i}`));
  });

  it('recover resends exactly the failed deliveries, once each', async () => {
    const { workspace, admin } = await people();
    const target = await receiver();
    const { id, secret } = await endpoint(workspace, `${target.url}/recover`, {
      event_types: ['feedback.created'],
    });
    // Down for the first three tries: the first ticket's delivery fails for good (3 tries).
    target.reply({ status: 503 });
    const since = new Date(Date.now() - 1_000);
    await fileFeedback(ctx.db, workspace.id, { note: 'first', title: null });
    await waitUntil(
      async () =>
        (
          await ctx.db
            .selectFrom('webhook_deliveries')
            .select('status')
            .where('hook_id', '=', id)
            .executeTakeFirst()
        )?.status === 'failed',
      'the first delivery to fail for good',
      15_000,
    );
    target.reply({ status: 200, body: 'ok' });
    await fileFeedback(ctx.db, workspace.id, { note: 'second', title: null });
    await target.waitFor(4);
    expect(await recoverFailedDeliveries(ctx.db, workspace.id, id, since)).toBe(1);
    // Asking again finds nothing failed: nothing is sent twice.
    await target.waitFor(5);
    expect(await recoverFailedDeliveries(ctx.db, workspace.id, id, since)).toBe(0);
    const got = verified(target, secret);
    const notes = got.map((d) => (d.data.ticket as { note: string }).note);
    expect(notes).toEqual(['first', 'first', 'first', 'second', 'first']);
    expect(admin).toBeDefined();
  });

  it('keeps one resource in order when a try fails, and signs with both secrets during a rotation', async () => {
    const { workspace, admin } = await people();
    const target = await receiver();
    const { id, secret: oldSecret } = await endpoint(workspace, `${target.url}/ordered`, {
      event_types: ['feedback.created', 'feedback.triaged', 'feedback.assigned'],
    });
    const newSecret = await rotateEndpointSecret(ctx.db, box, workspace.id, id, 24);
    // The first try fails: its retry still comes before the ticket's later events.
    target.replyOnce({ status: 500 });
    const ticket = await fileFeedback(ctx.db, workspace.id, { note: 'ordered', title: null });
    await triageFeedback(ctx.db, {
      workspaceId: workspace.id,
      feedbackId: ticket.id,
      actor: { kind: 'api' },
      change: { status: 'triaged', assignee_id: undefined },
    });
    await triageFeedback(ctx.db, {
      workspaceId: workspace.id,
      feedbackId: ticket.id,
      actor: { kind: 'api' },
      change: { assignee_id: admin.id },
    });
    await target.waitFor(4);
    // Both secrets verify every delivery while the overlap lasts.
    const withOld = verified(target, oldSecret);
    const withNew = verified(target, newSecret);
    expect(withNew.map((d) => d.type)).toEqual(withOld.map((d) => d.type));
    expect(withOld.map((d) => d.type)).toEqual([
      'feedback.created',
      'feedback.created',
      'feedback.triaged',
      'feedback.assigned',
    ]);
    // The failed try and its retry are one delivery (one webhook-id).
    expect(withOld[0]!.id).toBe(withOld[1]!.id);
    const signatures = target.requests[0]!.headers['webhook-signature'] as string;
    expect(signatures.split(' ')).toHaveLength(2);
  });

  it('sends an alert rule and an endpoint on the same URL one delivery, not two', async () => {
    const { workspace, admin, room } = await people();
    const target = await receiver();
    const url = `${target.url}/shared`;
    await endpoint(workspace, url, { event_types: ['error.group.created'] });
    const rules = await validateErrorAlertRules(
      ctx.db,
      workspace.id,
      { room_id: room.id, url, new_group: true },
      { allowPrivateTargets: true },
    );
    await saveErrorAlertRules(ctx.db, box, workspace.id, rules, admin.id);
    await writeErrors(workspace.id, [report('Shared')]);
    await target.waitFor(1);
    // Whatever else is in flight has had its chance: the alert's room message is there already.
    const owed = await ctx.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('outgoing_webhooks as h', 'h.id', 'd.hook_id')
      .select(['d.event', 'h.owner'])
      .where('h.workspace_id', '=', workspace.id)
      .execute();
    expect(owed).toEqual([{ event: 'error.group.created', owner: 'event_endpoint' }]);
  });
});
