import { readFileSync } from 'node:fs';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startApp, type RunningApp } from '@ferry/testing';
import { createHttpApp, createMetrics, finishApp } from '../src/index.js';

const logger = pino({ level: 'silent' });
/** 20 KB of script-like text: compresses well, as the widget bundle does. */
const SCRIPT = Array.from({ length: 400 }, (_, i) => `var line${i} = "widget code ${i}";`).join(
  '\n',
);

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET whose body is returned as the bytes on the wire (fetch would decompress them). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
      })
      .on('error', reject);
  });
}

describe('response compression (#28 defect 4)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    const server = createHttpApp({ logger, metrics: createMetrics('compress-test') });
    // As the widget bundle is served: a strong ETag of its own, revalidated with req.fresh.
    server.get('/script.js', (req, res) => {
      res.set({ 'Content-Type': 'application/javascript', ETag: '"bundle-v1"' });
      if (req.fresh) {
        res.status(304).end();
        return;
      }
      res.send(SCRIPT);
    });
    server.get('/stream', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      res.end(`data: ${'x'.repeat(4000)}\n\n`);
    });
    finishApp(server, { logger });
    app = await startApp(server);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('gzips a large answer, keeps the bytes, and the (now weak) ETag still revalidates', async () => {
    const plain = await rawGet(`${app.url}/script.js`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    const strong = plain.headers.etag!;
    expect(strong).toBe('"bundle-v1"');

    const zipped = await rawGet(`${app.url}/script.js`, { 'Accept-Encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/i);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
    expect(gunzipSync(zipped.body).toString()).toBe(SCRIPT);
    // Other bytes, so not the plain answer's strong ETag: the same value, weak.
    expect(zipped.headers.etag).toBe(`W/${strong}`);

    for (const etag of [strong, `W/${strong}`]) {
      for (const encoding of ['gzip', 'identity']) {
        const again = await rawGet(`${app.url}/script.js`, {
          'Accept-Encoding': encoding,
          'If-None-Match': etag,
        });
        expect({ etag, encoding, status: again.status }).toEqual({ etag, encoding, status: 304 });
      }
    }
  });

  it('leaves Server-Sent Events alone: each event must go out as it is written', async () => {
    const stream = await rawGet(`${app.url}/stream`, { 'Accept-Encoding': 'gzip' });
    expect(stream.headers['content-encoding']).toBeUndefined();
    expect(stream.body.toString()).toContain('data: xxx');
  });

  it("the split deployment's proxy compresses the web app's answers too (infra/Caddyfile)", () => {
    const caddyfile = readFileSync(new URL('../../../infra/Caddyfile', import.meta.url), 'utf8');
    // The catch-all `handle {` (pages, the widget bundle) starts with the encode directive.
    expect(caddyfile).toMatch(/\n\thandle \{\n\t\tencode zstd gzip\n/);
  });
});
