import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, SecretBox } from '@ferry/core';
import type { Room, Workspace } from '@ferry/db';
import {
  fingerprint,
  parseBatch,
  writeErrorBatch,
  parseJob,
  startErrorWriter,
  type WriteErrorsDeps,
} from '@ferry/ingest-errors';
import { createRedisConnection, runOutboxRelay, type JobPayload } from '@ferry/queues';
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
  ROOM_ALERTS_PER_HOUR,
  saveErrorAlertRule,
  setErrorGroupStatus,
  validateErrorAlertRule,
  type ErrorAlertPayload,
} from '@ferry/workspace';

/**
 * Several alert rules a workspace (issue 43, part 7), end to end like error-alerts.test.ts: the
 * real error writer raises each rule's alerts in its transaction, the real relay and webhooks-out
 * deliver them to a loopback receiver per rule. Deliveries are rows committed with the write, so
 * "exactly one" is read from the table as soon as the write returns; the receiver then waits for
 * that one to arrive.
 */
describe('error alert rules', () => {
  let ctx: TestContext;
  let box: SecretBox;
  let relay: { stop(): Promise<void> };
  let running: RunningWebhooksOut;
  let handoffs: Awaited<ReturnType<typeof startErrorWriter>> | undefined;
  let connections: ReturnType<typeof createRedisConnection>[];
  let deps: WriteErrorsDeps;
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
    // The ingest-errors worker files the tickets alert rules hand to the agent (error-handoff).
    handoffs = startErrorWriter({
      config: ctx.config,
      db: ctx.db,
      logger: ctx.logger,
      connection,
      retentionLimit: 1_000_000,
    });
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
    await handoffs?.close();
    await running?.stop();
    for (const connection of connections ?? []) connection.disconnect();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await ctx?.close();
  });

  interface RuleSetup {
    id: string;
    hookId: string;
    receiver: Receiver;
  }

  /** A rule with its own URL (a receiver of its own) and whatever else `body` says. */
  async function rule(workspace: Workspace, body: Record<string, unknown>): Promise<RuleSetup> {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    const input = await validateErrorAlertRule(
      ctx.db,
      workspace.id,
      null,
      { url: `${receiver.url}/alerts`, ...body },
      { allowPrivateTargets: true },
    );
    const saved = await saveErrorAlertRule(ctx.db, box, workspace.id, null, input, null);
    return { id: saved!.rule.id, hookId: saved!.hook!.id, receiver };
  }

  /** A native report; `extra` sets the fields under test, `detail` makes it Sentry-like. */
  const report = (errorClass: string, extra: Record<string, unknown> = {}) => ({
    error_class: errorClass,
    message: `${errorClass} happened`,
    backtrace: ['app/models/user.rb:12:in `save`'],
    environment: 'production',
    source: 'ruby',
    ...extra,
  });

  function write(
    workspaceId: string,
    raw: Record<string, unknown>[],
    detail: (index: number) => Record<string, unknown> | undefined = () => undefined,
  ) {
    const parsed = [];
    for (let at = 0; at < raw.length; at += 10) {
      parsed.push(...parseBatch({ errors: raw.slice(at, at + 10) }, new Date()).reports);
    }
    const reports = parsed.map((one, index) => {
      const extra = detail(index);
      return {
        ...one,
        id: newId('errorOccurrence'),
        fingerprint: fingerprint(one),
        ...(extra ? { detail: extra } : {}),
      };
    });
    const payload: JobPayload<'error-ingest'> = {
      workspaceId,
      visitorId: null,
      receivedAt: new Date().toISOString(),
      reports,
    };
    // parseBatch takes 10 reports a request: one job (request) per 10, one batch for them all.
    const jobs = [];
    for (let at = 0; at < reports.length; at += 10) {
      jobs.push(parseJob({ ...payload, reports: reports.slice(at, at + 10) }));
    }
    return writeErrorBatch(deps, jobs);
  }

  const deliveries = (hookId: string) =>
    ctx.db
      .selectFrom('webhook_deliveries')
      .select(['event', 'body'])
      .where('hook_id', '=', hookId)
      .orderBy('created_at')
      .execute();

  /** The rule's deliveries as (event, group class): exactly what it was owed, in order. */
  async function owed(setup: RuleSetup): Promise<string[]> {
    const rows = await deliveries(setup.hookId);
    return rows.map((row) => {
      const payload = JSON.parse(row.body) as ErrorAlertPayload;
      return `${payload.type} ${payload.data.group.error_class}`;
    });
  }

  const groupOf = (workspaceId: string, errorClass: string) =>
    ctx.db
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('error_class', '=', errorClass)
      .executeTakeFirstOrThrow();

  it('alerts each rule on its own trigger, exactly once: new group, regression, spike', async () => {
    const workspace = await createWorkspace(ctx.db);
    const created = await rule(workspace, { name: 'New', new_group: true });
    const regressed = await rule(workspace, { name: 'Back', regression: true });
    const spike = await rule(workspace, {
      name: '5 in 10 min',
      frequency: { count: 5, minutes: 10 },
    });

    await write(workspace.id, [report('Declined')]);
    const group = await groupOf(workspace.id, 'Declined');
    await setErrorGroupStatus(ctx.db, workspace.id, group.id, 'resolved');
    await write(workspace.id, [report('Declined')]);
    await write(
      workspace.id,
      [1, 2].map(() => report('Declined')),
    );
    expect(await owed(spike)).toEqual([]); // 4 within the window: not yet
    await write(workspace.id, [report('Declined')]); // the 5th

    expect(await owed(created)).toEqual(['error_group.created Declined']);
    expect(await owed(regressed)).toEqual(['error_group.regressed Declined']);
    expect(await owed(spike)).toEqual(['error_group.spiking Declined']);
    for (const setup of [created, regressed, spike]) {
      await setup.receiver.waitFor(1);
      expect(setup.receiver.requests).toHaveLength(1);
    }
  });

  it('lets each filter through exactly the occurrences it names: environment, source, level, release, tag', async () => {
    const workspace = await createWorkspace(ctx.db);
    const rules = {
      environment: await rule(workspace, { new_group: true, environments: ['staging'] }),
      source: await rule(workspace, { new_group: true, sources: ['js'] }),
      level: await rule(workspace, { new_group: true, levels: ['Warning'] }),
      release: await rule(workspace, { new_group: true, releases: ['2.*'] }),
      tag: await rule(workspace, { new_group: true, tags: ['feature=checkout-*'] }),
    };
    // One new group a filter, each differing from the baseline (production, ruby, error, no
    // release, no tags) in that filter's field alone; and near misses that no rule takes.
    await write(
      workspace.id,
      [
        report('Baseline'),
        report('InStaging', { environment: 'staging' }),
        report('InStagingOld', { environment: 'staging-old' }),
        report('FromJs', { source: 'js' }),
        report('AWarning'),
        report('AFatal'),
        report('OnRelease2', { app_version: '2.4.1' }),
        report('OnRelease12', { app_version: '12.0' }),
        report('Tagged', { context: { tags: { feature: 'checkout-v2' } } }),
        report('TaggedElsewhere', { context: { tags: { feature: 'signup' } } }),
      ],
      // A Sentry event's level is its own; a native report's is `error`.
      (index) =>
        index === 4 ? { level: 'warning' } : index === 5 ? { level: 'fatal' } : undefined,
    );

    expect(await owed(rules.environment)).toEqual(['error_group.created InStaging']);
    expect(await owed(rules.source)).toEqual(['error_group.created FromJs']);
    expect(await owed(rules.level)).toEqual(['error_group.created AWarning']);
    expect(await owed(rules.release)).toEqual(['error_group.created OnRelease2']);
    expect(await owed(rules.tag)).toEqual(['error_group.created Tagged']);
    for (const setup of Object.values(rules)) {
      await setup.receiver.waitFor(1);
      expect(setup.receiver.requests).toHaveLength(1);
    }
  });

  it('hands a group to the agent at most once, whatever rules and triggers fire again', async () => {
    const workspace = await createWorkspace(ctx.db);
    const agentRule = { new_group: true, regression: true, hand_to_agent: true };
    // Two rules hand to the agent (no room, no URL: handing it over is the whole action).
    for (const name of ['First', 'Second']) {
      const input = await validateErrorAlertRule(
        ctx.db,
        workspace.id,
        null,
        { ...agentRule, name },
        { allowPrivateTargets: true },
      );
      await saveErrorAlertRule(ctx.db, box, workspace.id, null, input, null);
    }
    const tickets = () =>
      ctx.db
        .selectFrom('feedback')
        .select(['id', 'error_group_id', 'note'])
        .where('workspace_id', '=', workspace.id)
        .execute();

    await write(workspace.id, [report('PaymentTimeout')]);
    const group = await groupOf(workspace.id, 'PaymentTimeout');
    // Claimed in the write's commit with its event; the ingest worker's job files the ticket.
    let filed = await tickets();
    await waitUntil(
      async () => (filed = await tickets()).length > 0,
      'the hand-off job to file the ticket',
    );
    expect(filed).toHaveLength(1);
    expect(filed[0]!.error_group_id).toBe(group.id);
    expect(filed[0]!.note).toContain('PaymentTimeout: PaymentTimeout happened');
    // The agent hears of it as of any ticket filed: the feedback_filed event.
    const events = await ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('type', '=', 'feedback_filed')
      .execute();
    expect(events.some((e) => JSON.stringify(e.payload).includes(filed[0]!.id))).toBe(true);

    // It comes back: both rules alert for the regression, no second hand-off (no second event).
    await setErrorGroupStatus(ctx.db, workspace.id, group.id, 'resolved');
    await write(workspace.id, [report('PaymentTimeout')]);
    const asked = await ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('type', '=', 'error_handoff_requested')
      .execute();
    expect(asked.filter((e) => JSON.stringify(e.payload).includes(group.id))).toHaveLength(1);
    filed = await tickets();
    expect(filed).toHaveLength(1);
    const handed = await ctx.db
      .selectFrom('error_alert_handoffs')
      .selectAll()
      .where('group_id', '=', group.id)
      .execute();
    expect(handed).toHaveLength(1);
  });

  it('caps each rule at its own 30 room messages an hour, and says how many each held', async () => {
    const workspace = await createWorkspace(ctx.db);
    const admin = await createMember(ctx.db, workspace, { role: 'admin' });
    const rooms: Room[] = [];
    const ruleIds: string[] = [];
    for (const name of ['alerts-a', 'alerts-b']) {
      const room = await createRoom(ctx.db, workspace, { members: [admin], name });
      const input = await validateErrorAlertRule(
        ctx.db,
        workspace.id,
        null,
        { name, room_id: room.id, new_group: true },
        { allowPrivateTargets: true },
      );
      const saved = await saveErrorAlertRule(ctx.db, box, workspace.id, null, input, admin.id);
      rooms.push(room);
      ruleIds.push(saved!.rule.id);
    }
    // 35 new groups: both rules alert for each; each rule's room gets its own 30.
    await write(
      workspace.id,
      Array.from({ length: 35 }, (_, i) => report(`Storm${i}`)),
    );
    const messages = (room: Room) =>
      ctx.db
        .selectFrom('messages')
        .select('body')
        .where('room_id', '=', room.id)
        .orderBy('created_at')
        .execute();
    for (const room of rooms) {
      expect(await messages(room)).toHaveLength(ROOM_ALERTS_PER_HOUR);
    }
    const windows = await ctx.db
      .selectFrom('error_alert_windows')
      .select(['rule_id', 'alerts'])
      .where('workspace_id', '=', workspace.id)
      .orderBy('rule_id')
      .execute();
    expect(windows).toEqual([...ruleIds].sort().map((rule_id) => ({ rule_id, alerts: 35 })));
    // The hour's end: the second rule's held line goes to its own room, once.
    const windowStart = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    const job = {
      workspaceId: workspace.id,
      ruleId: ruleIds[1]!,
      windowStart,
      errorsUrl: 'http://ferry.test/errors',
    };
    expect(await postAlertsHeld({ db: ctx.db }, job)).toEqual({ held: 5 });
    expect(await postAlertsHeld({ db: ctx.db }, job)).toEqual({ held: 0 });
    expect((await messages(rooms[1]!)).at(-1)!.body).toContain('5 more alerts held');
    expect(await messages(rooms[0]!)).toHaveLength(ROOM_ALERTS_PER_HOUR);
  });

  it("notifies the rule's members once per alert: a Mentions entry for the room's message", async () => {
    const workspace = await createWorkspace(ctx.db);
    const admin = await createMember(ctx.db, workspace, { role: 'admin' });
    const member = await createMember(ctx.db, workspace, { role: 'member' });
    const bystander = await createMember(ctx.db, workspace, { role: 'member' });
    const room = await createRoom(ctx.db, workspace, { members: [admin, member], name: 'oncall' });
    const ssrf = { allowPrivateTargets: true };
    // Members are told through the room's message: without a room, or with a stranger, a 422.
    await expect(
      validateErrorAlertRule(
        ctx.db,
        workspace.id,
        null,
        { new_group: true, notify_member_ids: [member.id] },
        ssrf,
      ),
    ).rejects.toMatchObject({
      options: {
        fields: { notify_member_ids: expect.stringContaining('choose a room') as string },
      },
    });
    const stranger = await createMember(ctx.db, await createWorkspace(ctx.db));
    await expect(
      validateErrorAlertRule(
        ctx.db,
        workspace.id,
        null,
        { room_id: room.id, new_group: true, notify_member_ids: [stranger.id] },
        ssrf,
      ),
    ).rejects.toMatchObject({
      options: {
        fields: { notify_member_ids: expect.stringContaining('No such member') as string },
      },
    });
    const input = await validateErrorAlertRule(
      ctx.db,
      workspace.id,
      null,
      { room_id: room.id, new_group: true, notify_member_ids: [member.id, admin.id, member.id] },
      ssrf,
    );
    await saveErrorAlertRule(ctx.db, box, workspace.id, null, input, admin.id);

    await write(workspace.id, [report('Declined'), report('Declined')]);
    const messages = await ctx.db
      .selectFrom('messages')
      .select('id')
      .where('room_id', '=', room.id)
      .execute();
    expect(messages).toHaveLength(1);
    const mentions = await ctx.db
      .selectFrom('mentions')
      .select(['member_id', 'message_id', 'reason'])
      .where('room_id', '=', room.id)
      .orderBy('member_id')
      .execute();
    expect(mentions).toEqual(
      [admin.id, member.id].sort().map((member_id) => ({
        member_id,
        message_id: messages[0]!.id,
        reason: 'mention',
      })),
    );
    expect(mentions.some((m) => m.member_id === bystander.id)).toBe(false);
  });

  it("refuses a spike rule whose window differs from the workspace's other spike rules", async () => {
    const workspace = await createWorkspace(ctx.db);
    await rule(workspace, { frequency: { count: 10, minutes: 5 } });
    await expect(
      validateErrorAlertRule(
        ctx.db,
        workspace.id,
        null,
        { frequency: { count: 50, minutes: 60 } },
        { allowPrivateTargets: true },
      ),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      options: { fields: { 'frequency.minutes': expect.stringContaining('5 minutes') as string } },
    });
    // The same window, another count: fine.
    await rule(workspace, { frequency: { count: 100, minutes: 5 } });
  });
});
