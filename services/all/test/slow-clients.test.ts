import {
  createTestContext,
  entryCommand,
  killAll,
  startService,
  waitFor,
  type ServiceProcess,
  type TestContext,
} from '@ferry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyedRoom } from './support/keyed-room.js';
import { connect, send, type RawConnection } from './support/raw-http.js';

/**
 * Issue 47, slow clients: `pnpm start` in its own process (its real server and log), its limits
 * lowered so the waits are short. A body promised by Content-Length and not sent gets a JSON 408
 * and a closed connection after its route's limit (ingest and webhooks shorter than pages,
 * uploads longer); trickled headers are cut; a slow body that keeps coming within its limit is
 * served; an idle keep-alive connection outlives the headers' limit; a drain is not held by a
 * stalled body past its limit.
 */
const LIMITS = {
  HEADERS_TIMEOUT_MS: 1_000,
  INGEST_BODY_TIMEOUT_MS: 1_500,
  BODY_TIMEOUT_MS: 4_000,
  UPLOAD_BODY_TIMEOUT_MS: 30_000,
};
/** A timer never fires early; a loaded 2-core host may run it late, by this much at most. */
const LATE = 10_000;

describe('slow clients', () => {
  let ctx: TestContext;
  let ferry: ServiceProcess;
  let publicKey: string;
  let webhookKey: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    const keyed = await keyedRoom(ctx, 'CI');
    publicKey = keyed.workspace.public_key;
    webhookKey = keyed.rawKey;
    ferry = await startService({
      command: entryCommand('services/all/src/main.ts'),
      env: {
        ...ctx.env,
        ...Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, String(v)])),
        FERRY_PROCESSES: '1',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
      },
    });
  });

  afterAll(async () => {
    if (ferry) await killAll([ferry]);
    await ctx?.close();
  });

  /** Headers promising 1,000 bytes, then 10 of them, then nothing. */
  async function stall(path: string, headers: Record<string, string> = {}) {
    const conn = await connect(ferry.port);
    const head = Object.entries({ 'content-type': 'application/json', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    await send(
      conn.socket,
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}Content-Length: 1000\r\n\r\n{"note": "`,
    );
    return conn;
  }

  async function expectTimedOut(conn: RawConnection, limitMs: number, what: string) {
    const answer = await conn.answer(`the 408 of ${what}`, limitMs + LATE);
    await conn.closed(`the server to close ${what}'s connection after its 408`, LATE);
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe('request_timeout');
    expect(body.error.message).toMatch(/did not arrive/);
    // Not before its route's limit (timers never fire early; 50 ms for clock granularity).
    expect(conn.elapsed()).toBeGreaterThanOrEqual(limitMs - 50);
    return conn.elapsed();
  }

  it('answers a stalled ingest body 408 after the ingest limit, well before the default', async () => {
    const conn = await stall('/ingest/errors', { 'x-service-tenant': publicKey });
    const ms = await expectTimedOut(conn, LIMITS.INGEST_BODY_TIMEOUT_MS, 'a stalled report');
    expect(ms).toBeLessThan(LIMITS.BODY_TIMEOUT_MS);
    // The same on Sentry's envelope endpoint.
    const sentry = await stall(`/api/1/envelope/?sentry_key=${publicKey}`);
    const sentryMs = await expectTimedOut(
      sentry,
      LIMITS.INGEST_BODY_TIMEOUT_MS,
      'a stalled envelope',
    );
    expect(sentryMs).toBeLessThan(LIMITS.BODY_TIMEOUT_MS);
  });

  it('gives a page form the default limit', async () => {
    const conn = await stall('/login', { 'content-type': 'application/x-www-form-urlencoded' });
    const ms = await expectTimedOut(conn, LIMITS.BODY_TIMEOUT_MS, 'a stalled sign-in form');
    expect(ms).toBeLessThan(LIMITS.UPLOAD_BODY_TIMEOUT_MS);
  });

  it('logs a webhook 408 once, without the key in its path', async () => {
    const conn = await stall(`/wh/in/${webhookKey}`);
    await expectTimedOut(conn, LIMITS.INGEST_BODY_TIMEOUT_MS, 'a stalled webhook post');
    // A request logged after it: once its line is out, anything the 408 led to is out too.
    const marker = `/after-the-timeout-${Date.now()}`;
    expect((await fetch(`${ferry.url}${marker}`)).status).toBe(404);
    await waitFor(
      () => (ferry.log().includes(marker) ? true : undefined),
      `the log line of GET ${marker}`,
    );
    const lines = ferry.log().split('\n');
    const timeouts = lines.filter((line) => line.includes('/wh/in/') && line.includes('408'));
    expect(timeouts).toHaveLength(1);
    const entry = JSON.parse(timeouts[0]!) as Record<string, unknown>;
    expect(entry).toMatchObject({
      level: 40,
      method: 'POST',
      path: '/wh/in/[redacted]',
      route: '/wh/in/:key',
      limitMs: LIMITS.INGEST_BODY_TIMEOUT_MS,
      contentLength: 1000,
    });
    expect(ferry.log()).not.toContain(webhookKey);
    // The body parser's late "request aborted" is not a second report of it.
    expect(ferry.log()).not.toMatch(/request aborted/i);
  });

  it('serves a slow upload that keeps coming within its limit', async () => {
    const body = JSON.stringify({ note: `A screenshot's worth of patience. ${'x'.repeat(2_000)}` });
    const conn = await connect(ferry.port);
    await send(
      conn.socket,
      `POST /widget/v1/feedback HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Service-Tenant: ${publicKey}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    // The client's own pace (the scenario, not a wait for the server): ten pieces over about 5 s,
    // longer than the ingest and default limits, well inside the upload one.
    const pieces = 10;
    const size = Math.ceil(body.length / pieces);
    for (let i = 0; i < pieces; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await send(conn.socket, body.slice(i * size, (i + 1) * size));
    }
    const answer = await conn.answer('the answer to a slow feedback upload');
    expect(conn.elapsed()).toBeGreaterThan(LIMITS.BODY_TIMEOUT_MS);
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 201 });
    expect(answer.headers.connection).not.toBe('close');
    conn.socket.destroy();
  });

  it('cuts a client trickling its headers, and keeps an idle keep-alive connection', async () => {
    const idle = await connect(ferry.port);
    await send(idle.socket, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect((await idle.answer('the first /healthz on a kept-alive connection')).status).toBe(200);
    idle.reset();

    const slow = await connect(ferry.port);
    await send(slow.socket, 'POST /ingest/errors HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // A header line every 100 ms, for ever: only the server's limit ends it.
    let n = 0;
    const trickle = setInterval(() => {
      if (slow.socket.writable) slow.socket.write(`X-Slow-${n++}: ${'y'.repeat(10)}\r\n`);
    }, 100);
    try {
      await slow.closed('the server to cut a client trickling its headers', LATE * 2);
    } finally {
      clearInterval(trickle);
    }
    expect(slow.elapsed()).toBeGreaterThanOrEqual(LIMITS.HEADERS_TIMEOUT_MS - 50);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);

    // The idle connection was open all that time, longer than the headers' limit: still served.
    await send(idle.socket, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect((await idle.answer('/healthz again on the idle connection')).status).toBe(200);
    idle.socket.destroy();
  });

  it('drains on SIGTERM without waiting for a stalled body past its limit', async () => {
    const conn = await stall('/ingest/errors', { 'x-service-tenant': publicKey });
    // The request is in: a request that follows it on another connection has been answered.
    expect((await fetch(`${ferry.url}/healthz`)).status).toBe(200);
    const stopped = ferry.terminate();
    await expectTimedOut(conn, LIMITS.INGEST_BODY_TIMEOUT_MS, 'a body stalled across SIGTERM');
    const exit = await stopped;
    expect({ code: exit.code, log: exit.code === 0 ? '' : ferry.log() }).toEqual({
      code: 0,
      log: '',
    });
  });
});
