import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express, { type ErrorRequestHandler } from 'express';
import { createWorkspace, startApp, type RunningApp } from '@ferry/testing';
import { Client, expressErrorHandler } from '@ferry/sdk-node';
import { startIngestService, type IngestService } from './support/sdk-service.js';

describe('expressErrorHandler in a real express app, reporting to the real service', () => {
  let service: IngestService;
  let client: Client;
  let app: RunningApp;
  let workspaceId: string;

  beforeAll(async () => {
    service = await startIngestService();
    const ws = await createWorkspace(service.ctx.db);
    workspaceId = ws.id;
    client = new Client({ publicKey: ws.public_key, endpoint: service.url, environment: 'test' });

    const api = express.Router();
    api.get('/orders/:id', () => {
      throw new TypeError('order lookup failed');
    });
    api.post('/orders', async () => {
      await Promise.resolve();
      throw new RangeError('async failure');
    });
    const web = express();
    web.use('/api', api);
    const inner = express.Router();
    inner.get('/items/:sku', () => {
      throw new SyntaxError('bad sku');
    });
    // Mounted inside the router: req.baseUrl is still set when it runs.
    inner.use(expressErrorHandler(client));
    web.use('/shop/v2', inner);
    web.use(expressErrorHandler(client));
    // The app's own handler must still run after ours.
    const own: ErrorRequestHandler = (error: Error, _req, res, _next) => {
      res.status(500).json({ handledBy: 'app', message: error.message });
    };
    web.use(own);
    app = await startApp(web);
  });

  afterAll(async () => {
    await app.close();
    await client.close(0);
    await service.close();
  });

  it('fills request_method, request_path, url and context.route, then the app answers', async () => {
    const res = await fetch(`${app.url}/api/orders/7?expand=items`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ handledBy: 'app', message: 'order lookup failed' });
    const posted = await fetch(`${app.url}/api/orders`, { method: 'POST' });
    expect(posted.status).toBe(500);
    const inner = await fetch(`${app.url}/shop/v2/items/abc`);
    expect(inner.status).toBe(500);

    expect(await client.flush()).toBe(true);
    await service.waitForOccurrences(workspaceId, 3);
    const rows = await service.ctx.db
      .selectFrom('error_occurrences')
      .select(['error_class', 'request_method', 'request_path', 'url', 'context', 'environment'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('error_class')
      .execute();
    const host = new URL(app.url).host;
    expect(rows).toEqual([
      {
        error_class: 'RangeError',
        request_method: 'POST',
        request_path: '/api/orders',
        url: `http://${host}/api/orders`,
        context: { route: '/api/orders' },
        environment: 'test',
      },
      {
        error_class: 'SyntaxError',
        request_method: 'GET',
        request_path: '/shop/v2/items/abc',
        url: `http://${host}/shop/v2/items/abc`,
        context: { route: '/shop/v2/items/:sku' },
        environment: 'test',
      },
      {
        error_class: 'TypeError',
        request_method: 'GET',
        request_path: '/api/orders/7',
        url: `http://${host}/api/orders/7?expand=items`,
        context: { route: '/api/orders/:id' },
        environment: 'test',
      },
    ]);
  });
});
