import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationProblem, MUTATING, mountedRoutes } from '@ferry/http';
import { SOCKET_EVENTS } from '@ferry/web';
import { startFerry, type FerryHarness } from './support/ferry.js';

const servicesDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * One route table decides every action (#20): `pnpm start` mounts every service's routes through
 * @ferry/http's mount(), which records each one. This walks what was really mounted (not Express
 * internals): every route that changes anything names who may call it, and no route is
 * registered on a router by hand, outside a table.
 */
describe('the route table of pnpm start', () => {
  let ferry: FerryHarness;
  beforeAll(async () => {
    ferry = await startFerry();
    // Serving, as a user would find it, before anything is read or stopped.
    expect((await fetch(`${ferry.url}/readyz`)).status).toBe(200);
  });
  afterAll(async () => {
    await ferry?.close();
  });

  it('mounts every service and every changing route names its rule', () => {
    const routes = mountedRoutes();
    const patterns = new Set(routes.map((r) => `${r.method.toUpperCase()} ${r.pattern}`));
    for (const expected of [
      'POST /ingest/errors',
      'POST /wh/in/:key',
      'POST /api/v1/feedback/:feedbackId/dispatch',
      'POST /agents/v1/events',
      'POST /widget/v1/feedback',
      'POST /api/v1/feedback',
      'POST /w/:workspaceId/:slug/members/:memberId/role',
    ]) {
      expect(patterns).toContain(expected);
    }
    expect(routes.map(authorizationProblem).filter(Boolean)).toEqual([]);
    const changing = routes.filter((r) => MUTATING.includes(r.method) || r.writes);
    // Printed for the reader of a CI log: what the matrix and this test cover.
    console.info(
      `${routes.length} routes mounted, ${changing.length} of them change state:\n` +
        changing
          .map(
            (r) => `  ${r.method.toUpperCase()} ${r.pattern}  [${r.access.kind}: ${r.access.rule}]`,
          )
          .join('\n'),
    );
  });

  it('declares every socket event, and each that writes names its rule', () => {
    for (const event of SOCKET_EVENTS) {
      const problem = authorizationProblem({
        method: 'writes' in event ? 'post' : 'get',
        pattern: `socket ${event.event}`,
        path: event.event,
        access: event.access,
        handler: () => undefined,
      });
      expect({ event: event.event, problem }).toEqual({ event: event.event, problem: undefined });
    }
  });

  it('registers no route by hand: services declare them in tables', () => {
    const offenders: string[] = [];
    // A router method called with a path literal; route tables are `routes` (or a named table).
    const handMade =
      /\b(?!routes\b|bundleRoutes\b|endpoints\b|table\b)(\w+)\.(get|post|put|patch|delete|options|all)\(\s*['"`]\//g;
    // The only exceptions, with why.
    const allowed = new Set([
      // A 301 to the one icon we have: reads nothing, changes nothing, needs nobody.
      "services/web/src/app.ts: pages.get('/favicon.ico'",
    ]);
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const full = path.join(dir, name);
        if (name === 'node_modules' || name === 'test' || name === 'public') return [];
        return statSync(full).isDirectory() ? walk(full) : full.endsWith('.ts') ? [full] : [];
      });
    for (const file of walk(servicesDir)) {
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(handMade)) {
        const lineEnd = source.indexOf('\n', match.index);
        const call = source.slice(match.index, lineEnd < 0 ? undefined : lineEnd).trim();
        const where = `${path.relative(path.join(servicesDir, '..'), file)}: ${call}`;
        if (![...allowed].some((ok) => where.startsWith(ok))) {
          offenders.push(where);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
