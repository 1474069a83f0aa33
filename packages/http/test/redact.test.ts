import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import express from 'express';
import { pino } from 'pino';
import { startApp } from '@ferry/testing';
import { createHttpApp, createMetrics, finishApp, redactPath } from '../src/index.js';

describe('secrets in logged paths', () => {
  it('redacts webhook keys in any case and credential-like query values', () => {
    expect(redactPath('/wh/in/whk_abc')).toBe('/wh/in/[redacted]');
    expect(redactPath('/WH/IN/whk_abc/more?x=1')).toBe('/WH/IN/[redacted]/more?x=1');
    expect(redactPath('/api/v1/feedback?access_token=fry_x&page=2')).toBe(
      '/api/v1/feedback?access_token=[redacted]&page=2',
    );
    expect(redactPath('/x?page=1&TOKEN=abc#frag')).toBe('/x?page=1&TOKEN=[redacted]#frag');
    expect(redactPath('/rooms/room_1?monkey=banana')).toBe('/rooms/room_1?monkey=banana');
    expect(redactPath('/github/callback?code=abc123&state=s3cr3t')).toBe(
      '/github/callback?code=[redacted]&state=[redacted]',
    );
  });

  it('keeps the key out of the request log and the 5xx error log', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = pino({ level: 'trace' }, sink);
    const app = createHttpApp({ logger, metrics: createMetrics('redact-test') });
    const router = express.Router({ caseSensitive: false });
    router.post('/wh/in/:key', () => {
      throw new Error('the database fell over');
    });
    app.use(router);
    finishApp(app, { logger });
    const running = await startApp(app);
    try {
      for (const path of ['/wh/in/whk_SECRET1', '/WH/IN/whk_SECRET2?token=SECRET3']) {
        const res = await fetch(`${running.url}${path}`, { method: 'POST' });
        expect(res.status).toBe(500);
        expect(await res.text()).not.toContain('fell over');
      }
    } finally {
      await running.close();
    }
    const log = lines.join('');
    expect(log).toContain('request failed');
    expect(log).toContain('/WH/IN/[redacted]');
    expect(log).not.toMatch(/SECRET/);
  });
});
