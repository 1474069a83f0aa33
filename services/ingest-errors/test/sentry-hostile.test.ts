import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createWorkspace } from '@ferry/testing';
import { listErrorGroups } from '@ferry/workspace';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * Sentry's endpoints take bodies from anyone holding a public key: whatever they send, the answer
 * is a 4xx with our JSON error (never a 5xx, never a stack), and nothing odd is stored.
 */
describe('Sentry endpoints and hostile bodies', () => {
  let service: IngestService;
  let key: string;
  let workspaceId: string;
  /** 100 MB of zeros, gzipped (about 100 KB on the wire). */
  let bomb: Buffer;

  beforeAll(async () => {
    service = await startIngestService();
    const ws = await createWorkspace(service.ctx.db);
    key = ws.public_key;
    workspaceId = ws.id;
    bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024), { level: 1 });
  });

  afterAll(async () => {
    await service.close();
  });

  const post = (
    path: 'envelope' | 'store',
    body: Buffer | string,
    headers: Record<string, string> = {},
  ): Promise<Response> =>
    fetch(`${service.url}/api/1/${path}/?sentry_key=${key}`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });

  const event = JSON.stringify({ exception: { values: [{ type: 'E', value: 'x' }] } });

  const hostile: [string, 'envelope' | 'store', () => Buffer | string, Record<string, string>][] = [
    ['an empty envelope', 'envelope', () => '', {}],
    [
      'an envelope header that is not JSON',
      'envelope',
      () => `{oops\n{"type":"event"}\n${event}`,
      {},
    ],
    [
      'an envelope header that is an array',
      'envelope',
      () => `[1]\n{"type":"event"}\n${event}`,
      {},
    ],
    ['an item header without a type', 'envelope', () => `{}\n{"length":2}\n{}`, {}],
    [
      'an item length past the body',
      'envelope',
      () => `{}\n{"type":"event","length":99999}\n${event}`,
      {},
    ],
    ['a negative item length', 'envelope', () => `{}\n{"type":"event","length":-5}\n${event}`, {}],
    [
      'a fractional item length',
      'envelope',
      () => `{}\n{"type":"event","length":1.5}\n${event}`,
      {},
    ],
    [
      'a length that cuts the event short',
      'envelope',
      () => `{}\n{"type":"event","length":10}\n${event}`,
      {},
    ],
    ['an event that is not JSON', 'envelope', () => `{}\n{"type":"event"}\nnot json`, {}],
    ['an event that is a string', 'envelope', () => `{}\n{"type":"event"}\n"hello"`, {}],
    [
      'NUL bytes in the header',
      'envelope',
      () => Buffer.from(`{\0}\n{"type":"event"}\n${event}`),
      {},
    ],
    ['NUL bytes between items', 'envelope', () => Buffer.from(`{}\n\0\0\0\n${event}`), {}],
    ['100 MB once gunzipped', 'envelope', () => bomb, { 'Content-Encoding': 'gzip' }],
    ['100 MB once gunzipped, to store', 'store', () => bomb, { 'Content-Encoding': 'gzip' }],
    ['gzip that is not gzip', 'envelope', () => 'plain text', { 'Content-Encoding': 'gzip' }],
    ['an encoding nobody knows', 'envelope', () => 'abc', { 'Content-Encoding': 'zstd-ish' }],
    ['a store body that is not JSON', 'store', () => 'garbage!', {}],
    ['a store body that is a JSON array', 'store', () => '[1,2]', {}],
    ['a store body of NUL bytes', 'store', () => Buffer.alloc(64), {}],
    [
      'raven base64+zlib that inflates past the cap',
      'store',
      () => deflateSync(Buffer.alloc(4 * 1024 * 1024)).toString('base64'),
      { 'Content-Type': 'application/octet-stream' },
    ],
    ['base64 that is not zlib', 'store', () => Buffer.from('hello').toString('base64'), {}],
  ];

  it.each(hostile)('%s: a 4xx with a JSON error', async (_name, path, body, headers) => {
    const answer = await post(path, body(), headers);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    const json = (await answer.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toMatch(/^[a-z_]+$/);
    expect(json.error.message).not.toMatch(/\n\s+at /);
    // Every answer, refusals included, is readable by a browser SDK.
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('100 MB decompressed answers 413', async () => {
    expect((await post('envelope', bomb, { 'Content-Encoding': 'gzip' })).status).toBe(413);
  });

  it('NUL characters inside strings are stored without them; gzip, deflate and br are read', async () => {
    const withNul = JSON.stringify({
      exception: { values: [{ type: 'Nul\u0000Error', value: 'a\u0000b' }] },
      tags: { 'k\u0000': 'v\u0000' },
    });
    const envelope = `{}\n{"type":"event"}\n${withNul}\n`;
    const encodings: [string, Buffer][] = [
      ['gzip', gzipSync(envelope)],
      ['deflate', deflateSync(envelope)],
      ['br', brotliCompressSync(envelope)],
    ];
    for (const [encoding, body] of encodings) {
      const answer = await post('envelope', body, { 'Content-Encoding': encoding });
      expect(answer.status).toBe(200);
    }
    await service.waitForOccurrences(workspaceId, 3);
    const page = await listErrorGroups(service.ctx.db, workspaceId);
    expect(page.groups.map((group) => group.error_class)).not.toContain('Nul\u0000Error');
  });

  it('answers the preflight with the headers browser SDKs need', async () => {
    const answer = await fetch(`${service.url}/api/1/envelope/`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://shop.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-expose-headers')).toContain('X-Sentry-Rate-Limits');
  });

  it('reads the key from Authorization: Sentry and from the envelope header dsn', async () => {
    const envelope = `{}\n{"type":"event"}\n${event}`;
    const viaHeader = await fetch(`${service.url}/api/9/envelope/`, {
      method: 'POST',
      headers: { Authorization: `Sentry sentry_version=7, sentry_key=${key}` },
      body: envelope,
    });
    expect(viaHeader.status).toBe(200);
    const viaDsn = await fetch(`${service.url}/api/9/envelope/`, {
      method: 'POST',
      body: `{"dsn":"http://${key}@ferry.test/9"}\n{"type":"event"}\n${event}`,
    });
    expect(viaDsn.status).toBe(200);
    expect(await viaDsn.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/) as string });
  });

  it('an unknown key sent with the request is refused before the body is read: 403, not 413', async () => {
    const answer = await fetch(`${service.url}/api/1/envelope/?sentry_key=pk_unknown`, {
      method: 'POST',
      headers: { 'Content-Encoding': 'gzip' },
      body: new Uint8Array(bomb),
    });
    expect(answer.status).toBe(403);
    expect(await answer.json()).toEqual({
      error: { code: 'forbidden', message: expect.stringContaining('DSN') as string },
    });
  });

  it('a request with no key at all answers 401', async () => {
    const answer = await fetch(`${service.url}/api/1/envelope/`, {
      method: 'POST',
      body: `{}\n{"type":"event"}\n${event}`,
    });
    expect(answer.status).toBe(401);
  });
});
