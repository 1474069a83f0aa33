import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { waitUntil } from '@ferry/testing';
import {
  createEndpoint,
  eventEnvelopeSchema,
  validateEndpoint,
  type EventData,
} from '@ferry/workspace';
import type { SseClient } from './support/sse.js';
import { agentWorkspace, connect, startGateway, type Gateway } from './support/gateway.js';

/**
 * agent.connected and agent.disconnected (issue 44) from real agent streams: an SSE stream opened
 * on /agents/v1/stream and closed by the agent, through the gateway's own handler, which owes them
 * as delivery rows of webhooks-out's stream in the same transaction as the agent's state (a service
 * imports no other: sending those rows is services/all/test/event-webhooks.test.ts's part). A
 * second stream of a connected agent is no event, nor is closing one of two; the last one closing
 * is.
 */
describe('agent connection events for event webhooks', () => {
  let gateway: Gateway;
  let hookId: string;
  const open: SseClient[] = [];

  beforeAll(async () => {
    gateway = await startGateway({
      AGENT_KEEPALIVE_MS: '200',
    });
  });
  afterAll(async () => {
    for (const client of open) client.close();
    await gateway?.close();
  });

  async function stream(token: string): Promise<SseClient> {
    const client = await connect(gateway, token, 'install-events-1', {
      'x-service-agent-name': 'builder',
    });
    open.push(client);
    expect(client.status).toBe(200);
    await client.waitFor((events) => events.some((e) => e.event === 'hello'), 'the hello frame');
    // A keepalive comment comes only from the hub: the stream is registered (and marked open).
    await waitUntil(() => client.comments > 0, 'a keepalive on the new stream');
    return client;
  }

  /** Closes the stream and waits until the gateway's handler has run its close (the hub lets go). */
  async function hangUp(client: SseClient, agentId: string, stillOpen: number): Promise<void> {
    client.close();
    await waitUntil(
      () => gateway.hub.agents().filter((id) => id === agentId).length === (stillOpen ? 1 : 0),
      `the gateway to see the stream of ${agentId} closed`,
    );
  }

  /** What the endpoint is owed, in its stream's order, each body checked against the catalog. */
  async function owed() {
    const rows = await gateway.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'body'])
      .where('hook_id', '=', hookId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => {
      const body = JSON.parse(row.body) as { type: 'agent.connected' | 'agent.disconnected' };
      const parsed = eventEnvelopeSchema(body.type).parse(body);
      return { id: row.id, type: parsed.type, data: parsed.data as EventData<'agent.connected'> };
    });
  }

  const owedCount = async (count: number) =>
    waitUntil(async () => (await owed()).length >= count, `${count} agent events owed`);

  it('owes connected when the first stream opens and disconnected when the last one closes', async () => {
    const { workspace, token } = await agentWorkspace(gateway);
    const input = await validateEndpoint(
      gateway.ctx.db,
      workspace.id,
      {
        url: 'https://hooks.example.test/agents',
        event_types: ['agent.connected', 'agent.disconnected'],
      },
      { allowPrivateTargets: true },
    );
    const { endpoint } = await createEndpoint(
      gateway.ctx.db,
      new SecretBox(gateway.ctx.config.APP_SECRET),
      workspace.id,
      input,
      null,
    );
    hookId = endpoint.id;

    const first = await stream(token.raw);
    const agentId = (first.events[0]!.data as { agent: { id: string } }).agent.id;
    await owedCount(1);
    // A second stream of the connected agent (a restarted CLI, a second terminal): no event.
    const second = await stream(token.raw);
    await hangUp(first, agentId, 1);
    // The last stream closing is the disconnect.
    await hangUp(second, agentId, 0);
    await owedCount(2);
    // Connecting again after that is a new connect.
    const third = await stream(token.raw);
    await owedCount(3);
    await hangUp(third, agentId, 0);
    await owedCount(4);

    const got = await owed();
    expect(got.map((body) => body.type)).toEqual([
      'agent.connected',
      'agent.disconnected',
      'agent.connected',
      'agent.disconnected',
    ]);
    for (const body of got) {
      expect(body.data.agent).toMatchObject({ id: agentId, name: 'builder' });
    }
    expect(new Set(got.map((d) => d.id)).size).toBe(4);
  });

  it('does not register a stream whose agent hung up before the hub got it', async () => {
    // The route marks the stream open (a transaction) before handing it to the hub; an agent that
    // hung up meanwhile has fired 'close' already. Registered, it would stay listed for good, the
    // keepalive would keep the agent connected and agent.disconnected would never come.
    const gone = {
      destroyed: true,
      closed: true,
      on: () => gone,
      write: () => true,
      end: () => gone,
    } as unknown as Parameters<Gateway['hub']['open']>[1];
    const { closed } = gateway.hub.open({ agentId: 'agt_gone', tokenId: 'tok_gone' }, gone);
    expect(gateway.hub.agents()).not.toContain('agt_gone');
    let done = false;
    void closed.then(() => (done = true));
    await waitUntil(() => done, 'the hub to answer the dead stream as closed');
  });
});
