import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@ferry/core';
import { startApp } from '@ferry/testing';
import {
  createHttpApp,
  createMetrics,
  finishApp,
  SLOW_REQUEST_MS,
  staticAssetRoutes,
} from '../src/index.js';

/** #28: a request's log line at info names the request and its answer, never a header dump. */
describe('the request log line', () => {
  it('has the method, path and status (and a redirect target), no headers', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger({ level: 'info', pretty: false, destination });
    const app = createHttpApp({ logger, metrics: createMetrics('request-log-test') });
    app.get('/page', (_req, res) => {
      res.set('X-Answer-Header', 'answer-value').send('ok');
    });
    app.get('/away', (_req, res) => {
      res.redirect(302, '/login?next=/rooms');
    });
    finishApp(app, { logger });
    const running = await startApp(app);
    try {
      for (const path of ['/page', '/away']) {
        await fetch(`${running.url}${path}`, {
          redirect: 'manual',
          headers: { 'X-Request-Header': 'request-value', Cookie: 'sid=cookie-value' },
        });
      }
    } finally {
      await running.close();
    }
    const logged = lines
      .map((line) => JSON.parse(line) as { msg?: string; req?: object; res?: object })
      .filter((entry) => entry.req);
    expect(logged).toHaveLength(2);
    const text = JSON.stringify(logged);
    for (const value of ['request-value', 'cookie-value', 'answer-value']) {
      expect(text).not.toContain(value);
    }
    expect(text).not.toContain('"headers"');
    expect(logged[0]).toMatchObject({
      req: { method: 'GET', url: '/page' },
      res: { statusCode: 200 },
    });
    expect(logged[1]).toMatchObject({ res: { statusCode: 302 } });
    expect((logged[1]!.res as { location?: string }).location).toMatch(/^\/login\?next=/);
  });

  it('leaves out successful static assets, never failed or slow ones (issue 42)', async () => {
    const entries: { level: number; msg: string }[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          entries.push(JSON.parse(line) as { level: number; msg: string });
        }
        done();
      },
    });
    const logger = createLogger({ level: 'info', pretty: false, destination });
    const app = createHttpApp({ logger, metrics: createMetrics('request-log-assets-test') });
    app.use('/assets', staticAssetRoutes);
    app.get('/assets/app.css', (_req, res) => res.type('css').send('body{}'));
    app.get('/assets/cached.css', (_req, res) => res.status(304).end());
    app.get('/assets/broken.css', () => {
      throw new Error('unreadable');
    });
    // A response that takes longer than the bound: a slow asset is worth a line.
    app.get('/assets/slow.css', (_req, res) => {
      setTimeout(() => res.type('css').send('body{}'), SLOW_REQUEST_MS + 100);
    });
    app.get('/page', (_req, res) => res.send('ok'));
    finishApp(app, { logger });
    const running = await startApp(app);
    try {
      for (const path of [
        '/assets/app.css',
        '/assets/cached.css',
        '/assets/missing.css',
        '/assets/broken.css',
        '/assets/slow.css',
        '/page',
      ]) {
        await fetch(`${running.url}${path}`);
      }
    } finally {
      await running.close();
    }
    const requests = entries.filter((e) => /^GET /.test(e.msg));
    expect(requests.map((e) => e.msg.replace(/ \d+ ms/, ' N ms'))).toEqual([
      'GET /assets/missing.css 404 N ms',
      'GET /assets/broken.css 500 N ms',
      'GET /assets/slow.css 200 N ms (slow)',
      'GET /page 200 N ms',
    ]);
    // error 50, warn 40, info 30
    expect(requests.map((e) => e.level)).toEqual([30, 50, 40, 30]);
  });
});
