import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestContext,
  entryCommand,
  killAll,
  startService,
  type ServiceProcess,
  type TestContext,
} from '@ferry/testing';
import { chooseDescription } from '../src/features/api-docs/published.js';

type Description = { servers: { url: string }[]; paths: Record<string, Record<string, unknown>> };

/**
 * Issue 46, in a split deployment (compose, Kubernetes): web runs alone and mounts only its own
 * tables, yet behind the proxy GET /api/v1/openapi.json must describe the whole API. Web's real
 * entry, as its container runs it, answers the published copy (docs/openapi.json, held to what
 * every table generates by openapi.test) with its own server URL.
 */
describe('the API description from a web running alone', () => {
  let ctx: TestContext;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await killAll(processes);
    await ctx.close();
  });

  it('describes every service’s routes, not only web’s, at this server’s URL', async () => {
    const publicUrl = 'https://ferry.example.test';
    const web = await startService({
      command: entryCommand('services/web/src/main.ts'),
      env: { ...ctx.env, PUBLIC_URL: publicUrl },
    });
    processes.push(web);
    const answer = await fetch(`${web.url}/api/v1/openapi.json`);
    expect(answer.status).toBe(200);
    const description = (await answer.json()) as Description;
    expect(description.servers).toEqual([{ url: publicUrl }]);
    // Routes of ingest-errors, webhooks-in, agent-gateway and dispatch: none mounted by web.
    expect(Object.keys(description.paths)).toEqual(
      expect.arrayContaining([
        '/ingest/errors',
        '/wh/in/{key}',
        '/agents/v1/whoami',
        '/api/v1/feedback/{feedbackId}/dispatch',
        '/api/v1/errors',
      ]),
    );
  });

  it('serves what it generates when the published copy lacks one of its routes (a tree changed since)', () => {
    const op = { get: {} };
    const generated = { servers: [{ url: 'g' }], paths: { '/a': op, '/new': op } };
    const published = { servers: [{ url: 'p' }], paths: { '/a': op, '/b': op, '/c': op } };
    expect(chooseDescription(generated, published, 'u')).toBe(generated);
    expect(chooseDescription(generated, undefined, 'u')).toBe(generated);
    const part = { servers: [{ url: 'g' }], paths: { '/a': op } };
    expect(chooseDescription(part, published, 'u')).toEqual({
      ...published,
      servers: [{ url: 'u' }],
    });
    // Everything mounted (pnpm start): the generated one, even when equal to the copy.
    expect(chooseDescription(published, published, 'u')).toBe(published);
  });
});
