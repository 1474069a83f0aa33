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
  validateEndpoint,
  type EventData,
} from '@ferry/workspace';
import type { SseClient } from './support/sse.js';
import { agentWorkspace, connect, startGateway, type Gateway } from './support/gateway.js';

/**
 * agent.connected and agent.disconnected (issue 44) from real agent streams: an SSE stream opened
 * on /agents/v1/stream and closed by the agent, through the gateway's own handler; webhooks-out
 * delivers them to a loopback receiver. A second stream of a connected agent is no event, nor is
 * closing one of two; the last one closing is.
 */
describe('agent connection events for event webhooks', () => {
  let gateway: Gateway;
  let running: RunningWebhooksOut;
  let connections: ReturnType<typeof createRedisConnection>[];
  let target: Receiver;
  const open: SseClient[] = [];

  beforeAll(async () => {
    gateway = await startGateway({
      AGENT_KEEPALIVE_MS: '200',
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      WEBHOOK_SWEEP_INTERVAL_MS: '300',
      WEBHOOK_THROTTLE_MIN_DELAY_MS: '0',
    });
    const { ctx } = gateway;
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
    target = await new Receiver().start();
  });
  afterAll(async () => {
    for (const client of open) client.close();
    await running?.stop();
    for (const connection of connections ?? []) connection.disconnect();
    await target?.close();
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

  const types = () =>
    target.requests.map((request) => {
      const body = JSON.parse(request.body) as { type: 'agent.connected' | 'agent.disconnected' };
      const parsed = eventEnvelopeSchema(body.type).parse(body);
      return { type: parsed.type, data: parsed.data as EventData<'agent.connected'> };
    });

  it('sends connected when the first stream opens and disconnected when the last one closes', async () => {
    const { workspace, token } = await agentWorkspace(gateway);
    const input = await validateEndpoint(
      gateway.ctx.db,
      workspace.id,
      { url: `${target.url}/agents`, event_types: ['agent.connected', 'agent.disconnected'] },
      { allowPrivateTargets: true },
    );
    await createEndpoint(
      gateway.ctx.db,
      new SecretBox(gateway.ctx.config.APP_SECRET),
      workspace.id,
      input,
      null,
    );

    const first = await stream(token.raw);
    const agentId = (first.events[0]!.data as { agent: { id: string } }).agent.id;
    await target.waitFor(1);
    // A second stream of the connected agent (a restarted CLI, a second terminal): no event.
    const second = await stream(token.raw);
    await hangUp(first, agentId, 1);
    // The last stream closing is the disconnect.
    await hangUp(second, agentId, 0);
    await target.waitFor(2);
    // Connecting again after that is a new connect.
    const third = await stream(token.raw);
    await target.waitFor(3);
    await hangUp(third, agentId, 0);
    await target.waitFor(4);

    const got = types();
    expect(got.map((body) => body.type)).toEqual([
      'agent.connected',
      'agent.disconnected',
      'agent.connected',
      'agent.disconnected',
    ]);
    for (const body of got) {
      expect(body.data.agent).toMatchObject({ id: agentId, name: 'builder' });
    }
    expect(new Set(target.requests.map((r) => r.headers['webhook-id'])).size).toBe(4);
  });
});
