import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { newId, SecretBox } from '@ferry/core';
import type { ErrorAlertTrigger, Member, Room, Workspace } from '@ferry/db';
import {
  fingerprint,
  parseBatch,
  writeErrorBatch,
  parseJob,
  type WriteErrorsDeps,
} from '@ferry/ingest-errors';
import {
  createProducer,
  createRedisConnection,
  runOutboxRelay,
  type JobPayload,
  type Producer,
} from '@ferry/queues';
import {
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
  postAlertsHeld,
  startWebhooksOut,
  type RunningWebhooksOut,
} from '@ferry/webhooks-out';
import {
  holdPendingDeliveries,
  requestDrain,
  ROOM_ALERTS_PER_HOUR,
  saveErrorAlertRules,
  setErrorGroupStatus,
  validateErrorAlertRules,
  type ErrorAlertPayload,
  type ErrorAlertRulesInput,
} from '@ferry/workspace';

/**
 * Error alerts end to end (issue 26 part 1): the real error writer (writeErrorBatch, the function
 * the ingest worker runs) raises alerts in its transaction; the real outbox relay and webhooks-out
 * workers deliver the signed POSTs to a loopback receiver, verified with the Standard Webhooks
 * reference library. Room messages are committed with the occurrences, so they are read as soon as
 * the write returns.
 */
describe('error alerts', () => {
  let ctx: TestContext;
  let box: SecretBox;
  let relay: { stop(): Promise<void> };
  let running: RunningWebhooksOut;
  let connections: ReturnType<typeof createRedisConnection>[];
  let deps: WriteErrorsDeps;
  let producer: Producer;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    ctx = await createTestContext({
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
      WEBHOOK_TIMEOUT_MS: '2000',
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
    producer = createProducer({ connection: producerConnection, prefix: ctx.config.REDIS_PREFIX });
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
    await producer?.close();
    await running?.stop();
    for (const connection of connections ?? []) connection.disconnect();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await ctx?.close();
  });

  interface Setup {
    workspace: Workspace;
    admin: Member;
    room: Room;
    receiver: Receiver;
    secret: string;
    hookId: string;
  }

  /** parseBatch takes at most this many reports a request (a job is one request). */
  const PER_JOB = 10;

  async function setup(rules: Partial<ErrorAlertRulesInput>): Promise<Setup> {
    const workspace = await createWorkspace(ctx.db);
    const admin = await createMember(ctx.db, workspace, { role: 'admin' });
    const room = await createRoom(ctx.db, workspace, { members: [admin], name: 'alerts' });
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    const input = await validateErrorAlertRules(
      ctx.db,
      workspace.id,
      { room_id: room.id, url: `${receiver.url}/alerts`, ...rules },
      { allowPrivateTargets: true },
    );
    const saved = await saveErrorAlertRules(ctx.db, box, workspace.id, input, admin.id);
    return {
      workspace,
      admin,
      room,
      receiver,
      secret: saved.secret ?? '',
      hookId: saved.hook?.id ?? '',
    };
  }

  const report = (errorClass: string, environment = 'production') => ({
    error_class: errorClass,
    message: `${errorClass} happened`,
    backtrace: ['app/models/user.rb:12:in `save`', 'app/controllers/users.rb:3'],
    environment,
  });

  function job(workspaceId: string, raw: Record<string, unknown>[]): JobPayload<'error-ingest'> {
    const reports = parseBatch({ errors: raw }, new Date()).reports.map((parsed) => ({
      ...parsed,
      id: newId('errorOccurrence'),
      fingerprint: fingerprint(parsed),
    }));
    return { workspaceId, visitorId: null, receivedAt: new Date().toISOString(), reports };
  }

  /** One batch of as many jobs (requests) as the reports need. */
  function write(workspaceId: string, raw: Record<string, unknown>[]) {
    const jobs = [];
    for (let i = 0; i < raw.length; i += PER_JOB) {
      jobs.push(parseJob(job(workspaceId, raw.slice(i, i + PER_JOB))));
    }
    return writeErrorBatch(deps, jobs);
  }

  const alertMessages = (room: Room) =>
    ctx.db
      .selectFrom('messages')
      .select(['body', 'author_kind', 'author_member_id', 'display_name'])
      .where('room_id', '=', room.id)
      .orderBy('created_at')
      .execute();

  const deliveries = (hookId: string) =>
    ctx.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event', 'status', 'last_status_code'])
      .where('hook_id', '=', hookId)
      .orderBy('created_at')
      .execute();

  const groupOf = async (workspaceId: string, errorClass: string) =>
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

  /** The receiver's requests, each verified with the secret, as their payloads. */
  function verified(receiver: Receiver, secret: string): ErrorAlertPayload[] {
    return receiver.requests.map((request) => {
      const headers = stringHeaders(request.headers);
      // Throws on a bad signature or a stale timestamp.
      new Webhook(secret).verify(request.body, headers);
      const payload = JSON.parse(request.body) as ErrorAlertPayload;
      expect(headers['x-service-event']).toBe(payload.type);
      return payload;
    });
  }

  it('posts one room message from "Errors" and one signed delivery per trigger: new, regression, spike', async () => {
    const s = await setup({
      new_group: true,
      regression: true,
      frequency: { count: 5, minutes: 10 },
    });

    await write(s.workspace.id, [report('CardDeclined')]);
    const group = await groupOf(s.workspace.id, 'CardDeclined');
    let messages = await alertMessages(s.room);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      author_kind: 'system',
      author_member_id: null,
      display_name: 'Errors',
    });
    const body = messages[0]!.body;
    expect(body).toContain('New error');
    expect(body).toContain('CardDeclined');
    expect(body).toContain('CardDeclined happened');
    expect(body).toContain('app/models/user.rb:12');
    expect(body).toContain('production');
    expect(body).toContain('1 occurrence');
    expect(body).toContain(
      `http://ferry.test/w/${s.workspace.id}/${s.workspace.slug}/errors/${group.id}`,
    );
    await s.receiver.waitFor(1);

    // A regression: resolved, then it happens again.
    await setErrorGroupStatus(ctx.db, s.workspace.id, group.id, 'resolved');
    await write(s.workspace.id, [report('CardDeclined')]);
    messages = await alertMessages(s.room);
    expect(messages).toHaveLength(2);
    expect(messages[1]!.body).toContain('Regression');
    await s.receiver.waitFor(2);

    // A spike: 5 within 10 minutes (2 so far, 4 more).
    await write(
      s.workspace.id,
      [1, 2, 3, 4].map(() => report('CardDeclined')),
    );
    messages = await alertMessages(s.room);
    expect(messages).toHaveLength(3);
    expect(messages[2]!.body).toContain('Spike');
    expect(messages[2]!.body).toContain('6 occurrences');
    await s.receiver.waitFor(3);

    const events = (await deliveries(s.hookId)).map((d) => d.event);
    expect(events).toEqual(['error_group.created', 'error_group.regressed', 'error_group.spiking']);
    const payloads = verified(s.receiver, s.secret);
    expect(payloads.map((p) => p.type)).toEqual(events);
    expect(payloads[0]!.data).toEqual({
      workspace_id: s.workspace.id,
      trigger: 'created',
      group: {
        id: group.id,
        error_class: 'CardDeclined',
        latest_message: 'CardDeclined happened',
        culprit: 'app/models/user.rb:12:in `save`',
        environment: 'production',
        occurrence_count: 1,
        first_seen_at: expect.any(String) as string,
        last_seen_at: expect.any(String) as string,
        url: `http://ferry.test/w/${s.workspace.id}/${s.workspace.slug}/errors/${group.id}`,
      },
    });
    expect(s.receiver.requests.map((r) => r.headers['webhook-id'])).toEqual(
      (await deliveries(s.hookId)).map((d) => d.id),
    );
  });

  it('holds the hourly caps under 5,000 occurrences of one group in a minute', async () => {
    const s = await setup({ new_group: true, frequency: { count: 100, minutes: 1 } });
    const started = Date.now();
    // 10 writers at once, each 5 batches of 100 reports (10 jobs of 10): 5,000 occurrences of one
    // group, written as the worker writes them.
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let batch = 0; batch < 5; batch++) {
          await write(
            s.workspace.id,
            Array.from({ length: 100 }, () => report('Storm')),
          );
        }
      }),
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    const group = await groupOf(s.workspace.id, 'Storm');
    expect(Number(group.occurrence_count)).toBe(5_000);
    const messages = await alertMessages(s.room);
    expect(messages.map((m) => m.body.split(':')[0])).toEqual(['**New error**', '**Spike']);
    const owed = await deliveries(s.hookId);
    expect(owed.map((d) => d.event).sort()).toEqual(['error_group.created', 'error_group.spiking']);
    await s.receiver.waitFor(2);
    expect(verified(s.receiver, s.secret)).toHaveLength(2);

    // A second storm within the hour: silent.
    await write(
      s.workspace.id,
      Array.from({ length: 200 }, () => report('Storm')),
    );
    expect(await alertMessages(s.room)).toHaveLength(2);
    expect(await deliveries(s.hookId)).toHaveLength(2);
  });

  it('posts at most 30 alert messages a workspace an hour, then one "N more alerts held" line', async () => {
    const s = await setup({ new_group: true, url: null });
    const classes = Array.from({ length: 40 }, (_, i) => `Distinct${i}`);
    // Four writers at once, 10 new groups each.
    await Promise.all(
      [0, 1, 2, 3].map((w) =>
        write(
          s.workspace.id,
          classes.slice(w * 10, w * 10 + 10).map((c) => report(c)),
        ),
      ),
    );
    let messages = await alertMessages(s.room);
    expect(messages).toHaveLength(ROOM_ALERTS_PER_HOUR);
    const window = await ctx.db
      .selectFrom('error_alert_windows')
      .selectAll()
      .where('workspace_id', '=', s.workspace.id)
      .executeTakeFirstOrThrow();
    expect(window.alerts).toBe(40);
    // The held line's job: written once, delayed to the end of the hour.
    const held = (
      await ctx.db
        .selectFrom('outbox')
        .select('payload')
        .where('type', '=', 'error_alerts_held')
        .execute()
    ).filter((row) => (row.payload as { workspaceId?: string }).workspaceId === s.workspace.id);
    expect(held).toHaveLength(1);
    const payload = held[0]!.payload as {
      workspaceId: string;
      windowStart: string;
      errorsUrl: string;
    };
    // What the delayed job does when the hour ends (run now rather than wait an hour); twice is once.
    expect(await postAlertsHeld({ db: ctx.db }, payload)).toEqual({ held: 10 });
    expect(await postAlertsHeld({ db: ctx.db }, payload)).toEqual({ held: 0 });
    messages = await alertMessages(s.room);
    expect(messages).toHaveLength(ROOM_ALERTS_PER_HOUR + 1);
    expect(messages.at(-1)).toMatchObject({ display_name: 'Errors', author_kind: 'system' });
    expect(messages.at(-1)!.body).toBe(
      `10 more alerts held: see the [Errors page](http://ferry.test/w/${s.workspace.id}/${s.workspace.slug}/errors)`,
    );
  });

  it('never alerts for an ignored group', async () => {
    const s = await setup({
      new_group: true,
      regression: true,
      frequency: { count: 2, minutes: 10 },
    });
    await write(s.workspace.id, [report('Noisy')]);
    expect(await alertMessages(s.room)).toHaveLength(1);
    const group = await groupOf(s.workspace.id, 'Noisy');
    await setErrorGroupStatus(ctx.db, s.workspace.id, group.id, 'ignored');
    await write(
      s.workspace.id,
      Array.from({ length: 20 }, () => report('Noisy')),
    );
    expect(Number((await groupOf(s.workspace.id, 'Noisy')).occurrence_count)).toBe(21);
    expect(await alertMessages(s.room)).toHaveLength(1);
    expect(await deliveries(s.hookId)).toHaveLength(1);
    const triggers = await ctx.db
      .selectFrom('error_alert_state')
      .select('trigger')
      .where('group_id', '=', group.id)
      .execute();
    const expected: ErrorAlertTrigger[] = ['created'];
    expect(triggers.map((t) => t.trigger)).toEqual(expected);
  });

  it('alerts only for the environments the rule names', async () => {
    const s = await setup({ new_group: true, environments: ['production'] });
    await write(s.workspace.id, [report('OnlyStaging', 'staging')]);
    await write(s.workspace.id, [{ ...report('NoEnvironment'), environment: undefined }]);
    expect(await alertMessages(s.room)).toHaveLength(0);
    expect(await deliveries(s.hookId)).toHaveLength(0);
    await write(s.workspace.id, [report('InProduction', 'production')]);
    const messages = await alertMessages(s.room);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.body).toContain('InProduction');
    await waitUntil(() => s.receiver.requests.length === 1, 'the production alert delivery');
    expect(verified(s.receiver, s.secret).map((p) => p.data.group.error_class)).toEqual([
      'InProduction',
    ]);
  });

  it("counts a spike within the rule's window and environments only", async () => {
    const s = await setup({ frequency: { count: 3, minutes: 10 }, environments: ['production'] });
    const spikes = async () =>
      (await alertMessages(s.room)).filter((m) => m.body.startsWith('**Spike'));
    // The group's spike slots are a sixth of the window each (migration 2026_11_27_0100): moving
    // its newest slot back by n is n sixths of the window passing.
    const age = async (slots: number) => {
      const group = await groupOf(s.workspace.id, 'Bursty');
      const counter = await ctx.db
        .selectFrom('error_groups')
        .select('spike_latest_slot')
        .where('id', '=', group.id)
        .executeTakeFirstOrThrow();
      await ctx.db
        .updateTable('error_groups')
        .set({ spike_latest_slot: String(BigInt(counter.spike_latest_slot!) - BigInt(slots)) })
        .where('id', '=', group.id)
        .execute();
    };

    // Two in production, and staging's never count.
    await write(s.workspace.id, [report('Bursty'), report('Bursty')]);
    await write(
      s.workspace.id,
      [1, 2, 3].map(() => report('Bursty', 'staging')),
    );
    expect(await spikes()).toHaveLength(0);
    // The two are now older than the window: one more is one in the window.
    await age(7);
    await write(s.workspace.id, [report('Bursty')]);
    expect(await spikes()).toHaveLength(0);
    // Half a window later, two more: three within the window.
    await age(3);
    await write(s.workspace.id, [report('Bursty')]);
    expect(await spikes()).toHaveLength(0);
    await write(s.workspace.id, [report('Bursty')]);
    const [spike] = await spikes();
    expect(spike!.body).toContain('Bursty');
    expect(spike!.body).toContain('over 3 in 10 min');
  });

  it('a replayed job (run again after a crash past its commit) neither counts nor spikes', async () => {
    const s = await setup({ frequency: { count: 4, minutes: 10 } });
    const once = parseJob(job(s.workspace.id, [report('Replayed'), report('Replayed')]));
    await writeErrorBatch(deps, [once]);
    // The same two reports again, beside one new one: 3 occurrences in all, under the 4 (counting
    // the replay twice would make 5, a spike).
    await writeErrorBatch(deps, [once, parseJob(job(s.workspace.id, [report('Replayed')]))]);
    const group = await groupOf(s.workspace.id, 'Replayed');
    expect(Number(group.occurrence_count)).toBe(3);
    expect(await alertMessages(s.room)).toHaveLength(0);
    const counts = await ctx.db
      .selectFrom('error_groups')
      .select('spike_slots')
      .where('id', '=', group.id)
      .executeTakeFirstOrThrow();
    expect(counts.spike_slots!.reduce((sum, n) => sum + n, 0)).toBe(3);
  });

  it('holds alert deliveries while the URL is disabled; saving the rule again sends them', async () => {
    const s = await setup({ new_group: true });
    // The first try fails; its retry is far off (the default schedule), so it stays pending.
    s.receiver.replyOnce({ status: 503, body: 'down' });
    await write(s.workspace.id, [report('WhileDown')]);
    await s.receiver.waitFor(1);
    // A delivery is pending before its first try too: wait for the 503 to be written back, or
    // the disable below can land mid-try and the drainer holds it itself (a CI flake).
    await waitUntil(async () => {
      const [first] = await deliveries(s.hookId);
      return first?.status === 'pending' && first.last_status_code === 503;
    }, 'the failed try (503) to be recorded on the pending delivery');
    // What webhooks-out does at the failure limit: disable, and hold every stream event.
    await ctx.db
      .updateTable('outgoing_webhooks')
      .set({ state: 'disabled', disabled_reason: 'test' })
      .where('id', '=', s.hookId)
      .execute();
    expect(await holdPendingDeliveries(ctx.db, s.hookId)).toBe(1);
    expect((await deliveries(s.hookId)).map((d) => d.status)).toEqual(['held']);
    // A new alert while disabled is owed, held.
    await write(s.workspace.id, [report('StillDown')]);
    expect((await deliveries(s.hookId)).map((d) => d.status)).toEqual(['held', 'held']);

    const input = await validateErrorAlertRules(
      ctx.db,
      s.workspace.id,
      { room_id: s.room.id, url: `${s.receiver.url}/alerts`, new_group: true },
      { allowPrivateTargets: true },
    );
    const saved = await saveErrorAlertRules(ctx.db, box, s.workspace.id, input, s.admin.id);
    expect(saved.hook?.state).toBe('enabled');
    expect(saved.releasedDeliveries).toBe(2);
    await requestDrain(producer, s.hookId);
    await s.receiver.waitFor(3);
    const sent = verified(s.receiver, s.secret).map((p) => p.data.group.error_class);
    expect(sent).toEqual(['WhileDown', 'WhileDown', 'StillDown']);
  });
});
