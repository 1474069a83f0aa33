import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorGroup, createErrorOccurrence } from '@ferry/testing';
import { fileTicketForErrorGroup } from '@ferry/workspace';
import type { SseClient } from './support/sse.js';
import {
  agentWorkspace,
  connect,
  postJson,
  startGateway,
  type Gateway,
} from './support/gateway.js';

const workOf = (client: SseClient) =>
  client.events.filter((e) => e.event === 'work').map((e) => e.data as Record<string, unknown>);

/**
 * Issue 26 part 3's Done-when, end to end: "Fix with agent" (fileTicketForErrorGroup, what both
 * POST /api/v1/errors/:id/feedback and the group page's button call) files one ticket that the
 * workspace's connected local agent receives on its stream; a second click opens the same ticket
 * and hands the agent nothing new.
 */
describe('Fix with agent reaches a connected local agent', () => {
  let gateway: Gateway;
  const open: SseClient[] = [];
  beforeAll(async () => {
    gateway = await startGateway({ AGENT_KEEPALIVE_MS: '200' });
  });
  afterAll(async () => {
    for (const client of open) client.close();
    await gateway?.close();
  });

  it('files one ticket the agent receives; a second click opens the same ticket, no new work', async () => {
    const { db } = gateway.ctx;
    const { workspace, token } = await agentWorkspace(gateway, 'Acme Errors');
    const client = await connect(gateway, token.raw, 'install-errors-1');
    open.push(client);
    expect(client.status).toBe(200);
    await client.waitFor((events) => events.some((e) => e.event === 'hello'), 'hello');

    const group = await createErrorGroup(db, workspace, {
      error_class: 'NoMethodError',
      latest_message: "undefined method `total' for nil",
    });
    await createErrorOccurrence(db, group, {
      backtrace: ['app/models/cart.rb:12:in `total`'],
      environment: 'production',
    });

    const first = await fileTicketForErrorGroup(db, workspace.id, group.id);
    expect(first?.created).toBe(true);
    await client.waitFor(() => workOf(client).length === 1, 'the work item for the ticket');
    const [work] = workOf(client);
    expect(work).toMatchObject({ kind: 'feedback', feedback: { id: first!.ticket.id } });
    const note = (work!.feedback as { note: string }).note;
    expect(note).toContain('NoMethodError');
    expect(note).toContain('app/models/cart.rb:12');
    const ack = await postJson(gateway, '/ack', token.raw, 'install-errors-1', {
      work_id: work!.work_id,
    });
    expect(ack.status).toBe(200);

    const second = await fileTicketForErrorGroup(db, workspace.id, group.id);
    expect(second).toMatchObject({ created: false, ticket: { id: first!.ticket.id } });
    const tickets = await db
      .selectFrom('feedback')
      .select('id')
      .where('error_group_id', '=', group.id)
      .execute();
    expect(tickets).toHaveLength(1);
    // Nothing new for the agent: a heartbeat re-sends only unacked work, and there is none.
    const beat = await postJson(gateway, '/heartbeat', token.raw, 'install-errors-1', {});
    expect(beat.json).toEqual({ ok: true, unacked: 0 });
    const log = await db
      .selectFrom('agent_work')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(log).toHaveLength(1);
  });
});
