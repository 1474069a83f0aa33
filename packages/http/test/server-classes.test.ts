import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createHttpApp, createMetrics, finishApp, serverClassesFor } from '../src/index.js';

const logger = pino({ level: 'silent' });

/**
 * Issue 48: `pnpm start`'s server makes its requests and responses with the app's own prototypes
 * (serverClassesFor), so express never swaps them; and a JSON answer to anything but GET or HEAD
 * carries no ETag (leanJson), while GET keeps express's ETag and 304.
 */
describe("a server made with the app's request and response classes", () => {
  let server: http.Server;
  let url: string;
  const seen: { requestProto: boolean; responseProto: boolean; isIncoming: boolean }[] = [];

  beforeAll(async () => {
    const app = createHttpApp({ logger, metrics: createMetrics('server-classes-test') });
    const record: http.RequestListener = (req, res) => {
      seen.push({
        requestProto: Object.getPrototypeOf(req) === app.request,
        responseProto: Object.getPrototypeOf(res) === app.response,
        isIncoming: req instanceof http.IncomingMessage,
      });
    };
    app.get('/thing', (_req, res) => {
      res.json({ thing: 1 });
    });
    app.post('/thing', (_req, res) => {
      res.status(201).json({ made: true });
    });
    finishApp(app, { logger });
    server = http.createServer({ ...serverClassesFor(app) }, app);
    // Before express sees them.
    server.prependListener('request', record);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('hands express requests and responses that already have its prototypes', async () => {
    seen.length = 0;
    expect((await fetch(`${url}/thing`)).status).toBe(200);
    expect((await fetch(`${url}/thing`, { method: 'POST' })).status).toBe(201);
    expect(seen).toEqual([
      { requestProto: true, responseProto: true, isIncoming: true },
      { requestProto: true, responseProto: true, isIncoming: true },
    ]);
  });

  it('answers a POST with JSON and no ETag; a GET keeps its ETag and 304', async () => {
    const posted = await fetch(`${url}/thing`, { method: 'POST' });
    expect(posted.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(posted.headers.get('content-length')).toBe(String('{"made":true}'.length));
    expect(posted.headers.get('etag')).toBeNull();
    expect(await posted.json()).toEqual({ made: true });

    const got = await fetch(`${url}/thing`);
    const etag = got.headers.get('etag');
    expect(etag).toBeTruthy();
    expect(await got.json()).toEqual({ thing: 1 });
    // node:http, not fetch: fetch treats a conditional request as its own cache's business.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http
        .get(`${url}/thing`, { headers: { 'if-none-match': etag ?? '' } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        })
        .on('error', reject);
    });
    expect(status).toBe(304);
  });
});
