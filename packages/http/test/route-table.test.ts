import { describe, expect, it } from 'vitest';
import express from 'express';
import { startApp } from '@ferry/testing';
import {
  access,
  authorizationProblem,
  declaredRoutes,
  mount,
  routeTable,
  type Access,
} from '../src/index.js';

const anySeat: Access = { kind: 'seat', rule: 'any seat', enforce: [] };

describe('route tables', () => {
  it('names the problem with a mutating route that has no rule, or only "any seat"', () => {
    const table = routeTable();
    table.get('/read', anySeat, (_req, res) => res.end());
    table.post('/write', anySeat, (_req, res) => res.end());
    table.get('/marks', { access: anySeat, writes: 'marks a room read' }, (_req, res) => res.end());
    // What a route declared without a rule looks like at run time (JavaScript, or a cast).
    table.delete('/gone', {} as Access, (_req, res) => res.end());
    table.put('/blank', access.public(' '), (_req, res) => res.end());
    const problems = declaredRoutes([{ base: '/x', table }]).map(authorizationProblem);
    expect(problems).toEqual([
      undefined,
      expect.stringContaining('POST /x/write changes state with only "any seat"'),
      expect.stringContaining('GET /x/marks changes state'),
      'DELETE /x/gone has no access rule',
      'PUT /x/blank names no rule for "public"',
    ]);
  });

  it('refuses to mount a table with such a route, so it cannot ship', () => {
    const table = routeTable();
    table.post('/write', anySeat, (_req, res) => res.end());
    expect(() => mount({ base: '/', table })).toThrow('changes state with only "any seat"');
  });

  it('runs the rule before the handler and records the whole pattern', async () => {
    const table = routeTable();
    const denied: Access = {
      kind: 'capability',
      rule: 'things.manage',
      enforce: [(_req, res) => void res.status(403).end()],
    };
    table.post('/things/:thingId', denied, (_req, res) => res.status(500).end());
    table.get('/things/:thingId', anySeat, (req, res) => {
      res.json({ id: req.params.thingId, pattern: res.locals.routePattern as string });
    });
    const app = express();
    app.use('/w/:workspaceId', mount({ base: '/w/:workspaceId', table }));
    const running = await startApp(app);
    try {
      expect((await fetch(`${running.url}/w/wsp_1/things/t1`, { method: 'POST' })).status).toBe(
        403,
      );
      expect(await (await fetch(`${running.url}/w/wsp_1/things/t1`)).json()).toEqual({
        id: 't1',
        pattern: '/w/:workspaceId/things/:thingId',
      });
    } finally {
      await running.close();
    }
  });
});
