import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Router } from 'express';
import { pino } from 'pino';
import { startApp, type RunningApp } from '@ferry/testing';
import { AppError } from '@ferry/core';
import {
  access,
  createHttpApp,
  createMetrics,
  finishApp,
  mount,
  routeTable,
  routesOf,
  shareRoutes,
} from '../src/index.js';
import { wasDispatched } from '../src/hot-dispatch.js';

const logger = pino({ level: 'silent' });

/**
 * Issue 48: a hot mount's routes are answered before the express stack (hotDispatch), with the
 * same handlers and the same answers as through its router, which still serves what the dispatch
 * passes on.
 */
describe('hot routes answered before the express stack', () => {
  let app: RunningApp;
  /** Per answered request: whether hotDispatch ran it, and through which path. */
  const seen: { path: string; dispatched: boolean }[] = [];
  /** The requests that entered the express stack (its router's handle). */
  const enteredExpress: string[] = [];

  beforeAll(async () => {
    const table = routeTable();
    const key = access.key('a key in the path', (req, _res, next) => {
      if (req.params.key === 'wrong') throw new AppError('not_found', 'No such key.');
      next();
    });
    table.post('/hot/:key', key, (req, res) => {
      seen.push({ path: req.originalUrl, dispatched: wasDispatched(req) });
      res.status(201).json({ key: req.params.key, pattern: res.locals.routePattern as string });
    });
    table.post('/hot/:key/rejects', key, () =>
      Promise.reject(new AppError('validation_failed', 'A rejected promise.')),
    );
    table.post('/hot/:key/next-error', key, (_req, _res, next) => {
      next(new AppError('forbidden', 'Passed to next.'));
    });
    // A route that passes the request on: it must not run twice, and the app's 404 answers.
    table.post('/hot/:key/passes', key, (req, _res, next) => {
      seen.push({ path: req.originalUrl, dispatched: wasDispatched(req) });
      next();
    });
    const service = Router();
    const mounted = mount({ base: '/', table }, { caseSensitive: true });
    service.use(mounted);
    shareRoutes(service, routesOf(mounted));
    const server = createHttpApp({
      logger,
      metrics: createMetrics('hot-dispatch-test'),
      hotRoutes: [service],
    });
    app = await startApp(finishApp(server, { logger }));
    const router = (server as unknown as { router: { handle: (...args: unknown[]) => void } })
      .router;
    const handle = router.handle.bind(router);
    router.handle = (...args: unknown[]) => {
      enteredExpress.push((args[0] as { url: string }).url);
      handle(...args);
    };
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = async (path: string) => {
    const res = await fetch(`${app.url}${path}`, { method: 'POST' });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('runs the route and its access rule, with params and the pattern, through the dispatch', async () => {
    seen.length = 0;
    expect(await post('/hot/k1?x=1')).toEqual({
      status: 201,
      body: { key: 'k1', pattern: '/hot/:key' },
    });
    expect(await post('/hot/k2/')).toMatchObject({ status: 201, body: { key: 'k2' } });
    expect(seen).toEqual([
      { path: '/hot/k1?x=1', dispatched: true },
      { path: '/hot/k2/', dispatched: true },
    ]);
    expect(await post('/hot/wrong')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
  });

  it("answers a hot route at the app's entry, never entering the express stack", async () => {
    enteredExpress.length = 0;
    const res = await fetch(`${app.url}/hot/k1`, {
      method: 'POST',
      headers: { 'x-request-id': 'hot-1' },
    });
    expect(res.status).toBe(201);
    // The app's own middleware ran: the request id is echoed.
    expect(res.headers.get('x-request-id')).toBe('hot-1');
    expect(enteredExpress).toEqual([]);
    // What is not a hot route, or what one passes on (here an error), goes through express.
    expect((await post('/elsewhere')).status).toBe(404);
    expect((await post('/hot/k1/rejects')).status).toBe(422);
    expect(enteredExpress).toEqual(['/elsewhere', '/hot/k1/rejects']);
  });

  it('leaves to the express router what it cannot match exactly, with the same answer', async () => {
    seen.length = 0;
    // express matches the path as sent (encoded) and decodes the param.
    expect(await post('/hot/k%31')).toMatchObject({ status: 201, body: { key: 'k1' } });
    expect(seen).toEqual([{ path: '/hot/k%31', dispatched: false }]);
    // Case-sensitive, as the table was mounted: no route, the app's 404.
    expect((await post('/HOT/k1')).status).toBe(404);
  });

  it("sends a thrown, rejected or passed error to the app's error handler", async () => {
    expect(await post('/hot/k1/rejects')).toMatchObject({
      status: 422,
      body: { error: { code: 'validation_failed', message: 'A rejected promise.' } },
    });
    expect(await post('/hot/k1/next-error')).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden' } },
    });
  });

  it('passes a request its route passed on to the rest of the app, without running it again', async () => {
    seen.length = 0;
    expect((await post('/hot/k1/passes')).status).toBe(404);
    expect(seen).toEqual([{ path: '/hot/k1/passes', dispatched: true }]);
  });
});
