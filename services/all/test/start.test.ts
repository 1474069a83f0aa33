import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { createDb } from '@ferry/db';
import { errorWriterJobs } from '@ferry/ingest-errors';
import { createRedisConnection, startJobs } from '@ferry/queues';
import {
  createApiToken,
  createTestContext,
  createWorkspace,
  waitFor,
  waitUntil,
  type TestContext,
} from '@ferry/testing';
import { loadFerryConfig } from '../src/config.js';
import { startAll, type RunningFerry } from '../src/server.js';

describe('pnpm start (every service in one process)', () => {
  let ctx: TestContext;
  // A database that does not exist yet: startAll must create and migrate it before serving.
  const freshUrl = (): string => {
    const fresh = new URL(ctx.config.DATABASE_URL);
    fresh.pathname = `/${fresh.pathname.slice(1)}_fresh`;
    return fresh.toString();
  };
  let ferry: RunningFerry;
  let url: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    ferry = await startAll(loadFerryConfig({ ...ctx.env, DATABASE_URL: freshUrl(), PORT: '0' }));
    url = `http://127.0.0.1:${(ferry.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await ferry.stop();
    const fresh = new URL(ctx.config.DATABASE_URL);
    const { default: pg } = await import('pg');
    const admin = new pg.Client({
      connectionString: fresh.toString().replace(/\/[^/]+$/, '/postgres'),
    });
    await admin.connect();
    await admin.query(`drop database if exists "${fresh.pathname.slice(1)}_fresh" with (force)`);
    await admin.end();
    await ctx.close();
  });

  it('refuses to start jobs when an outbox event is relayed to a queue nothing consumes', () => {
    // pnpm start without webhooks-out's jobs: message_created is relayed to webhook-delivery.
    const connection = createRedisConnection(ctx.config.redis, { role: 'worker' });
    try {
      expect(() =>
        startJobs(
          [
            errorWriterJobs({
              config: ctx.config,
              db: ctx.db,
              logger: ctx.logger,
              retentionLimit: 10,
            }),
          ],
          {
            connection,
            prefix: ctx.config.REDIS_PREFIX,
            logger: ctx.logger,
            requireRoutedQueues: true,
          },
        ),
      ).toThrow(/Outbox events are relayed to queues nothing here consumes: webhook-delivery/);
    } finally {
      connection.disconnect();
    }
  });

  it('migrates, then answers health, readiness, pages and the API', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
    const login = await fetch(`${url}/login`);
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('Sign in');
    const api = await fetch(`${url}/api/v1/feedback/fbk_x`);
    expect(api.status).toBe(401);
    const unknownApi = await fetch(`${url}/api/v1/nothing-here`, { method: 'POST' });
    expect(unknownApi.status).toBe(404);
    expect(await unknownApi.json()).toMatchObject({ error: { code: 'not_found' } });
    // Machine paths never fall into the pages (whose CSRF check would answer 403): a mistyped
    // sender or SDK URL gets its namespace's 404, in the shape its client reads.
    const json = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
    for (const path of ['/wh/in/whk_x/unknown', '/ingest/nothing-here']) {
      const answer = await fetch(`${url}${path}`, json);
      expect(answer.status, path).toBe(404);
      expect(await answer.json()).toMatchObject({ error: { code: 'not_found' } });
    }
    const discord = await fetch(`${url}/wh/in/whk_x/discord/v9/elsewhere`, json);
    expect(discord.status).toBe(404);
    expect(await discord.json()).toEqual({ message: '404: Not Found', code: 0 });
    const sentryApi = await fetch(`${url}/api/0/organizations/acme/repos/`, json);
    expect(sentryApi.status).toBe(404);
    expect(await sentryApi.json()).toEqual({ detail: 'There is nothing at this address.' });
    const metrics = await fetch(`${url}/metrics`);
    expect(await metrics.text()).toContain('http_request_duration_seconds');
  });

  it('relays outbox events: filed feedback is relayed with no agent-work job until a gateway consumes it', async () => {
    const db = createDb(freshUrl());
    try {
      const workspace = await createWorkspace(db);
      const token = await createApiToken(db, workspace, { scopes: ['tenant:write'] });
      const filed = await fetch(`${url}/api/v1/feedback`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.raw}`, 'content-type': 'application/json' },
        body: JSON.stringify({ note: 'The export button is greyed out' }),
      });
      expect(filed.status).toBe(201);
      // Both events of the filing (the ticket's and its system message's) are relayed, each to
      // no job: a system message never goes to outgoing webhooks (the loop guard, applied at the
      // relay's route), and no gateway consumes agent-work yet.
      let unsent = 2;
      await waitUntil(
        async () => {
          const rows = await db
            .selectFrom('outbox')
            .select('id')
            .where('sent_at', 'is', null)
            .execute();
          unsent = rows.length;
          return unsent === 0;
        },
        () => `the outbox to be relayed (${unsent} events unsent)`,
        30_000,
        100,
      );
      const events = await db.selectFrom('outbox').select(['id', 'type']).execute();
      expect(events.map((e) => e.type).sort()).toEqual(['feedback_filed', 'message_created']);
      const agentWork = new Queue('agent-work', {
        connection: ctx.redis,
        prefix: ctx.config.REDIS_PREFIX,
      });
      const delivery = new Queue('webhook-delivery', {
        connection: ctx.redis,
        prefix: ctx.config.REDIS_PREFIX,
      });
      try {
        expect(await agentWork.count()).toBe(0);
        const messageEvent = events.find((e) => e.type === 'message_created')!;
        expect(await delivery.getJob(messageEvent.id)).toBeUndefined();
        expect(await delivery.count()).toBe(0);
      } finally {
        await agentWork.close();
        await delivery.close();
      }
    } finally {
      await db.destroy();
    }
  });

  it('serves POST /ingest/errors before the web app and writes reports with its worker', async () => {
    const db = createDb(freshUrl());
    try {
      const workspace = await createWorkspace(db);
      const preflight = await fetch(`${url}/ingest/errors`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://shop.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-service-tenant',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      const sent = await fetch(`${url}/ingest/errors`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-tenant': workspace.public_key },
        body: JSON.stringify({ error_class: 'TypeError', message: 'boom', source: 'node' }),
      });
      expect(sent.status).toBe(202);
      const { ids } = (await sent.json()) as { ids: string[] };
      const row = await waitFor(
        () =>
          db
            .selectFrom('error_occurrences')
            .select(['id', 'source'])
            .where('id', '=', ids[0]!)
            .executeTakeFirst(),
        'the accepted error to be written',
        30_000,
        50,
      );
      expect(row).toEqual({ id: ids[0], source: 'node' });
    } finally {
      await db.destroy();
    }
  });
});
