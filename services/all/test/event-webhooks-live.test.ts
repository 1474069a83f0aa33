import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { SecretBox } from '@ferry/core';
import { createApiToken, createWorkspace, Receiver } from '@ferry/testing';
import {
  createEndpoint,
  eventEnvelopeSchema,
  validateEndpoint,
  type EventData,
} from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

/**
 * agent.connected and agent.disconnected end to end on `pnpm start`'s process (startAll): a real
 * agent SSE stream on /agents/v1/stream opened and hung up by the client, the gateway's handler
 * owing the events, the relay and webhooks-out sending them, a loopback receiver verifying each
 * with the Standard Webhooks library. (services/agent-gateway/test/event-webhooks.test.ts covers
 * second streams and reconnects on the gateway alone.)
 */
describe('agent events delivered from a real stream', () => {
  let web: FerryHarness;
  let receiver: Receiver;

  beforeAll(async () => {
    web = await startFerry({
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      WEBHOOK_SWEEP_INTERVAL_MS: '300',
    });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.close();
    await web?.close();
  });

  function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(headers)) {
      if (typeof value === 'string') out[key] = value;
    }
    return out;
  }

  it('an agent stream opening and closing sends agent.connected then agent.disconnected', async () => {
    const workspace = await createWorkspace(web.ctx.db);
    const input = await validateEndpoint(
      web.ctx.db,
      workspace.id,
      {
        url: `${receiver.url}/agents`,
        event_types: ['agent.connected', 'agent.disconnected'],
      },
      { allowPrivateTargets: true },
    );
    const { secret } = await createEndpoint(
      web.ctx.db,
      new SecretBox(web.ctx.config.APP_SECRET),
      workspace.id,
      input,
      null,
    );
    const token = await createApiToken(web.ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const hangUp = new AbortController();
    const stream = await fetch(`${web.url}/agents/v1/stream`, {
      headers: {
        authorization: `Bearer ${token.raw}`,
        'x-service-install-id': 'events-live-0001',
        'x-service-agent-name': 'laptop',
      },
      signal: hangUp.signal,
    });
    expect(stream.status).toBe(200);
    await receiver.waitFor(1);
    hangUp.abort();
    await receiver.waitFor(2);

    const got = receiver.requests.map((request) => {
      new StandardWebhook(secret).verify(request.body, stringHeaders(request.headers));
      const body = JSON.parse(request.body) as { type: 'agent.connected' | 'agent.disconnected' };
      const parsed = eventEnvelopeSchema(body.type).parse(body);
      return { type: parsed.type, data: parsed.data as EventData<'agent.connected'> };
    });
    expect(got.map((event) => event.type)).toEqual(['agent.connected', 'agent.disconnected']);
    const agent = await web.ctx.db
      .selectFrom('agents')
      .select(['id', 'name', 'room_id'])
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    for (const event of got) expect(event.data.agent).toEqual(agent);
  });
});
