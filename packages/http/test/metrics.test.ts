import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { pino } from 'pino';
import { startApp, type RunningApp } from '@ferry/testing';
import {
  createHttpApp,
  createMetrics,
  finishApp,
  isLoopbackAddress,
  metricsRouter,
} from '../src/index.js';

const logger = pino({ level: 'silent' });
const TOKEN = 'metrics-token-for-tests-0123456789';

/** An app with nested routers like web's (ids in the mount path), its /metrics guarded by `token`. */
async function startMetricsApp(token: string | undefined): Promise<RunningApp> {
  const metrics = createMetrics('metrics-test');
  const app = createHttpApp({ logger, metrics });
  const rooms = express.Router({ mergeParams: true });
  rooms.get('/rooms/:roomId', (_req, res) => {
    res.json({ ok: true });
  });
  app.use('/w/:workspaceId/:slug', rooms);
  // A route that declares its pattern, as the route table does.
  app.get('/declared/:secret', (_req, res) => {
    res.locals.routePattern = '/declared/:secret';
    res.json({ ok: true });
  });
  app.use(metricsRouter({ metrics, token }));
  finishApp(app, { logger });
  return startApp(app);
}

describe('/metrics labels', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startMetricsApp(undefined);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('labels requests with route patterns, never the ids and slugs in their paths', async () => {
    const paths = [
      '/w/wsp_LABELTEST/acme-labels/rooms/room_LABELTEST',
      '/declared/s3cr3t-value',
      '/w/wsp_LABELTEST/acme-labels/nothing-here',
      '/no/such/path',
    ];
    for (const path of paths) await fetch(`${app.url}${path}`);
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toContain('route="/w/:workspaceId/:slug/rooms/:roomId"');
    expect(text).toContain('route="/declared/:secret"');
    expect(text).toContain('route="unmatched",status="404"');
    for (const secret of ['LABELTEST', 'acme-labels', 's3cr3t', 'nothing-here', 'no/such']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('/metrics access', () => {
  it('answers loopback callers when no METRICS_TOKEN is set', async () => {
    const app = await startMetricsApp(undefined);
    try {
      const res = await fetch(`${app.url}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('http_request_duration_seconds');
    } finally {
      await app.close();
    }
  });

  it('with METRICS_TOKEN set, wants that bearer token from everyone, loopback included', async () => {
    const app = await startMetricsApp(TOKEN);
    try {
      const refusals: Record<string, string>[] = [
        {},
        { authorization: 'Bearer wrong-token' },
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: `Basic ${TOKEN}` },
      ];
      for (const headers of refusals) {
        const res = await fetch(`${app.url}/metrics`, { headers });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(await res.json()).toEqual({
          error: { code: 'invalid_token', message: expect.any(String) as string },
        });
      }
      const ok = await fetch(`${app.url}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('http_request_duration_seconds');
    } finally {
      await app.close();
    }
  });

  it('counts only loopback socket addresses as local', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '::ffff:127.0.0.1',
      '0:0:0:0:0:0:0:1',
    ]) {
      expect([address, isLoopbackAddress(address)]).toEqual([address, true]);
    }
    for (const address of [
      undefined,
      '',
      '10.0.0.7',
      '172.18.0.5',
      '::ffff:10.0.0.7',
      '128.0.0.1',
      '::2',
      'fe80::1',
      '127.0.0.1.example',
    ]) {
      expect([address, isLoopbackAddress(address)]).toEqual([address, false]);
    }
  });
});
