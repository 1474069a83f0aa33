import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { z } from 'zod';
import { AppError, createLogger } from '@ferry/core';
import { startApp, type RunningApp } from '@ferry/testing';
import {
  CONFORMANCE_ENV,
  access,
  errorHandler,
  inputOf,
  mount,
  routeTable,
  type RouteDoc,
} from '../src/index.js';

const open = access.public('a test route');
const thing = z.object({ id: z.string(), count: z.number().int() });
const doc = (extra: Partial<RouteDoc> = {}): RouteDoc => ({
  summary: 'A thing',
  tag: 'Things',
  security: 'none',
  responses: { 200: { description: 'The thing.', schema: thing } },
  ...extra,
});

/** A table whose routes answer what they describe, and some that do not. */
function things() {
  const table = routeTable();
  const query = z.object({ n: z.coerce.number().int().min(1).default(1) });
  table.get('/ok', { access: open, doc: doc({ query }) }, (_req, res) => {
    res.json({ id: 't1', count: inputOf(res.locals, 'query', query).n });
  });
  table.get('/wrong-field', { access: open, doc: doc() }, (_req, res) => {
    res.json({ id: 't1', count: 'many' });
  });
  table.get('/undocumented-status', { access: open, doc: doc() }, (_req, res) => {
    res.status(202).json({ id: 't1', count: 1 });
  });
  table.get('/not-found', { access: open, doc: doc() }, () => {
    throw new AppError('not_found', 'No such thing.');
  });
  table.get(
    '/vendor-error',
    { access: open, doc: doc({ errorSchema: z.object({ detail: z.string() }) }) },
    (_req, res) => {
      res.status(400).json({ detail: 'Bad thing.' });
    },
  );
  table.get(
    '/vendor-error-wrong',
    { access: open, doc: doc({ errorSchema: z.object({ detail: z.string() }) }) },
    () => {
      throw new AppError('bad_request', 'In our shape, not the vendor’s.');
    },
  );
  // Bodies read raw (a domain function validates them) are held to their described schema.
  const rawThing = (outsideSchema?: string): RouteDoc['rawBody'] => ({
    contentTypes: ['application/json'],
    description: 'A thing.',
    schema: thing,
    ...(outsideSchema ? { outsideSchema } : {}),
  });
  const json = express.text({ type: 'application/json' });
  table.post(
    '/raw',
    { access: open, before: [json], doc: doc({ rawBody: rawThing() }) },
    (_req, res) => {
      res.json({ id: 't1', count: 1 });
    },
  );
  table.post(
    '/raw-empty',
    {
      access: open,
      before: [json],
      doc: doc({ rawBody: rawThing(), responses: { 204: { description: 'Taken.' } } }),
    },
    (_req, res) => {
      res.status(204).end();
    },
  );
  table.post(
    '/raw-lenient',
    { access: open, before: [json], doc: doc({ rawBody: rawThing('Anything goes, on purpose.') }) },
    (_req, res) => {
      res.json({ id: 't1', count: 1 });
    },
  );
  return table;
}

async function serve(): Promise<RunningApp> {
  const app = express();
  app.use(mount({ base: '/', table: things() }));
  app.use(errorHandler({ logger: createLogger({ level: 'silent', name: 'test' }) }));
  return startApp(app);
}

/**
 * Issue 46: a RouteDoc's schemas validate the request (a refused query is the usual 422, a
 * passing one reaches the handler transformed), and with FERRY_API_CONFORMANCE=fail (the suite's
 * setting) an answer that does not match its description becomes a 500 naming the mismatch: a
 * wrong field, an undocumented success status, an error body in another shape than the route's.
 * Off (production), answers go out as the handler wrote them.
 */
describe('route docs: input validation and answer conformance', () => {
  let checked: RunningApp;
  let unchecked: RunningApp;
  const get = async (app: RunningApp, path: string) => {
    const answer = await fetch(`${app.url}${path}`);
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    const before = process.env[CONFORMANCE_ENV];
    process.env[CONFORMANCE_ENV] = 'fail';
    checked = await serve();
    delete process.env[CONFORMANCE_ENV];
    unchecked = await serve();
    if (before === undefined) delete process.env[CONFORMANCE_ENV];
    else process.env[CONFORMANCE_ENV] = before;
  });
  afterAll(async () => {
    await checked?.close();
    await unchecked?.close();
  });

  it('validates the declared query and hands the handler what the schema made of it', async () => {
    expect(await get(checked, '/ok?n=3')).toEqual({ status: 200, body: { id: 't1', count: 3 } });
    expect(await get(checked, '/ok')).toEqual({ status: 200, body: { id: 't1', count: 1 } });
    const refused = await get(checked, '/ok?n=0');
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error: { code: 'validation_failed', fields: { n: expect.any(String) as string } },
    });
  });

  it('turns an answer that does not match its description into a 500 saying why', async () => {
    const wrong = await get(checked, '/wrong-field');
    expect(wrong.status).toBe(500);
    expect(wrong.body).toMatchObject({
      error: {
        message: expect.stringContaining(
          '/wrong-field does not match its description: count',
        ) as string,
      },
    });
    const status = await get(checked, '/undocumented-status');
    expect(status.status).toBe(500);
    expect(String((status.body.error as { message: string }).message)).toContain(
      'status 202 is not documented',
    );
    // Errors are held to the error body: Ferry's by default, the route's own when it names one.
    expect(await get(checked, '/not-found')).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: 'No such thing.' } },
    });
    expect(await get(checked, '/vendor-error')).toEqual({
      status: 400,
      body: { detail: 'Bad thing.' },
    });
    expect((await get(checked, '/vendor-error-wrong')).status).toBe(500);
  });

  it('turns a success on a body its description refuses into a 500: a route cannot document one shape and take another', async () => {
    const post = async (app: RunningApp, path: string, body: unknown) => {
      const answer = await fetch(`${app.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: answer.status, text: await answer.text() };
    };
    expect((await post(checked, '/raw', { id: 'a', count: 2 })).status).toBe(200);
    const taken = await post(checked, '/raw', { id: 'a', count: 'two' });
    expect(taken.status).toBe(500);
    expect(taken.text).toContain(
      '/raw does not match its description: it accepted a body its description refuses (count',
    );
    expect(taken.text).toContain('"count\\":\\"two\\"');
    // An answer without a body (204) is checked too.
    expect((await post(checked, '/raw-empty', { id: 'a', count: 2 })).status).toBe(204);
    expect((await post(checked, '/raw-empty', { id: 'a' })).status).toBe(500);
    // A route that says why it takes more than it describes is left alone; so is production.
    expect((await post(checked, '/raw-lenient', { id: 'a', count: 'two' })).status).toBe(200);
    expect((await post(unchecked, '/raw', { id: 'a', count: 'two' })).status).toBe(200);
  });

  it('leaves answers alone when conformance is off, as in production', async () => {
    expect(await get(unchecked, '/wrong-field')).toEqual({
      status: 200,
      body: { id: 't1', count: 'many' },
    });
    expect((await get(unchecked, '/undocumented-status')).status).toBe(202);
  });
});
