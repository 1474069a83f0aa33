import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@ferry/core';
import { createTestContext, type TestContext } from '@ferry/testing';
import { startAll, type RunningFerry } from '../src/server.js';

describe('pnpm start (every service in one process)', () => {
  let ctx: TestContext;
  let ferry: RunningFerry;
  let url: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    // A brand-new database: startAll must migrate it before serving.
    const fresh = new URL(ctx.config.DATABASE_URL);
    fresh.pathname = `/${fresh.pathname.slice(1)}_fresh`;
    ferry = await startAll(loadConfig({ ...ctx.env, DATABASE_URL: fresh.toString(), PORT: '0' }));
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
    const metrics = await fetch(`${url}/metrics`);
    expect(await metrics.text()).toContain('http_request_duration_seconds');
  });
});
