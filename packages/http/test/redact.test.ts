import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startApp } from '@ferry/testing';
import {
  access,
  createHttpApp,
  createMetrics,
  finishApp,
  mount,
  redactPath,
  registerSecretRoute,
  routeTable,
} from '../src/index.js';

// Routes declare their secrets where they are declared; these are what webhooks-in and the
// invite pages declare.
registerSecretRoute('/wh/in/:key', { params: ['key'] });
registerSecretRoute('/invite/:token', { params: ['token'] });
registerSecretRoute('/github/setup', { query: ['installation_id'] });

describe('secrets in logged paths', () => {
  it('redacts declared path params and query keys, and a path inside a query value', () => {
    expect(redactPath('/invite/inv_SECRET')).toBe('/invite/[redacted]');
    expect(redactPath('/invite/inv_SECRET/')).toBe('/invite/[redacted]');
    expect(redactPath('/login?next=%2Finvite%2Finv_SECRET')).toBe(
      `/login?next=${encodeURIComponent('/invite/[redacted]')}`,
    );
    expect(redactPath('http://localhost:3000/login?next=/invite/inv_SECRET&x=1')).toBe(
      `http://localhost:3000/login?next=${encodeURIComponent('/invite/[redacted]')}&x=1`,
    );
    expect(redactPath('/github/setup?installation_id=42&setup_action=install')).toBe(
      '/github/setup?installation_id=[redacted]&setup_action=install',
    );
    // Undeclared paths are left alone.
    expect(redactPath('/invitees/inv_x')).toBe('/invitees/inv_x');
  });

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
    const table = routeTable();
    table.post(
      '/wh/in/:key',
      { access: access.key('the webhook key in the path'), secrets: { params: ['key'] } },
      () => {
        throw new Error('the database fell over');
      },
    );
    table.get(
      '/go/:token',
      { access: access.public('a test redirect'), secrets: { params: ['token'] } },
      (_req, res) => {
        res.redirect('/login?next=/go/tok_SECRET4');
      },
    );
    app.use(mount({ base: '/', table }));
    finishApp(app, { logger });
    const running = await startApp(app);
    try {
      for (const path of ['/wh/in/whk_SECRET1', '/WH/IN/whk_SECRET2?token=SECRET3']) {
        const res = await fetch(`${running.url}${path}`, { method: 'POST' });
        expect(res.status).toBe(500);
        expect(await res.text()).not.toContain('fell over');
      }
      const redirected = await fetch(`${running.url}/go/tok_SECRET5`, { redirect: 'manual' });
      expect(redirected.status).toBe(302);
    } finally {
      await running.close();
    }
    const log = lines.join('');
    expect(log).toContain('request failed');
    expect(log).toContain('/WH/IN/[redacted]');
    expect(log).toContain('/go/[redacted]');
    expect(log).not.toMatch(/SECRET/);
  });
});
