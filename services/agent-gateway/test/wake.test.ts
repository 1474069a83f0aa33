import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { Receiver, waitUntil } from '@ferry/testing';
import { fileFeedback, updateAgentWake } from '@ferry/workspace';
import {
  agentWorkspace,
  connect,
  postJson,
  startGateway,
  type Gateway,
} from './support/gateway.js';

/**
 * Wake requests for an offline agent with queued work: one per offline episode, with the token
 * header, retried when the receiver fails, repeated while work stays queued, and the held work
 * delivered once the agent connects.
 */
describe('waking an offline agent', () => {
  let gateway: Gateway;
  let receiver: Receiver;
  beforeAll(async () => {
    gateway = await startGateway({
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      AGENT_WAKE_REPEAT_MS: '1500',
    });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.close();
    await gateway?.close();
  });

  const file = (workspaceId: string, note: string) =>
    fileFeedback(gateway.ctx.db, workspaceId, {
      note,
      title: null,
      reporter: null,
      page: null,
      element: null,
    });

  it('wakes once per episode with the token, retries a 500, repeats while work waits, then delivers', async () => {
    const { workspace, token } = await agentWorkspace(gateway);
    // Registered (a heartbeat), then gone: offline.
    await postJson(gateway, '/heartbeat', token.raw, 'install-wake-1', { activity: 'Idle' });
    const agent = await gateway.ctx.db
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    await gateway.ctx.db
      .updateTable('agents')
      .set({ last_heartbeat_at: new Date(Date.now() - 120_000) })
      .where('id', '=', agent.id)
      .execute();
    await updateAgentWake(gateway.ctx.db, new SecretBox(gateway.ctx.config.APP_SECRET), agent.id, {
      url: `${receiver.url}/wake`,
      token: 'wake-secret-123',
    });
    receiver.replyOnce({ status: 500, body: 'not yet' });

    await file(workspace.id, 'First');
    await file(workspace.id, 'Second, same episode');
    // The first try fails (500) and is retried with backoff; the second gets through.
    await receiver.waitFor(2, 30_000);
    const [first, retry] = receiver.requests;
    expect(first!.headers['x-service-wake-token']).toBe('wake-secret-123');
    expect(JSON.parse(retry!.body)).toEqual({
      agent: { id: agent.id, name: agent.name },
      reason: 'queued_work',
    });
    // Still offline with work queued: repeated (here every 1.5 s), not once per ticket.
    await receiver.waitFor(3, 30_000);
    expect(receiver.requests.length).toBeLessThanOrEqual(4);

    // The agent connects: both held items arrive, and the episode ends.
    const client = await connect(gateway, token.raw, 'install-wake-1');
    await client.waitFor(
      (events) => events.filter((e) => e.event === 'work').length === 2,
      'the held work',
    );
    const notes = client.events
      .filter((e) => e.event === 'work')
      .map((e) => (e.data as { feedback: { note: string } }).feedback.note);
    expect(notes).toEqual(['First', 'Second, same episode']);
    await waitUntil(async () => {
      const row = await gateway.ctx.db
        .selectFrom('agents')
        .select('woken_at')
        .where('id', '=', agent.id)
        .executeTakeFirstOrThrow();
      return row.woken_at === null;
    }, 'the episode to end');
    client.close();
  });
});

describe('waking through the SSRF check', () => {
  let gateway: Gateway;
  let receiver: Receiver;
  beforeAll(async () => {
    gateway = await startGateway({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.close();
    await gateway?.close();
  });

  it('never sends a wake request to a private address, even one stored past the page check', async () => {
    const { workspace, token } = await agentWorkspace(gateway);
    await postJson(gateway, '/heartbeat', token.raw, 'install-ssrf-1', {});
    const agent = await gateway.ctx.db
      .selectFrom('agents')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    // Written straight to the row (as a DNS name re-pointed after it was saved would be).
    await updateAgentWake(gateway.ctx.db, new SecretBox(gateway.ctx.config.APP_SECRET), agent.id, {
      url: `${receiver.url}/wake`,
      token: 't',
    });
    await fileFeedback(gateway.ctx.db, workspace.id, {
      note: 'Wake me',
      title: null,
      reporter: null,
      page: null,
      element: null,
    });
    // The wake is claimed (an episode began) and its job refused at connect time.
    await waitUntil(async () => {
      const row = await gateway.ctx.db
        .selectFrom('agents')
        .select('woken_at')
        .where('id', '=', agent.id)
        .executeTakeFirstOrThrow();
      return row.woken_at !== null;
    }, 'the wake to be attempted');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.requests).toEqual([]);
  });
});
