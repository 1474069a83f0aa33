import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mountedRoutes, openApiDrift, openApiPath } from '@ferry/http';
import { MACHINE_PATHS, ferryOpenApiDocument } from '@ferry/web';
import { createApiToken, createWorkspace, waitUntil } from '@ferry/testing';
import { startFerry, type FerryHarness } from './support/ferry.js';

/** The committed description: what a reviewer sees change when the API does. */
const COMMITTED = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
/** Its server: the README's default address, so the file is the same on every machine. */
const COMMITTED_SERVER = 'http://localhost:3000';

/** The machine-facing namespaces the description must cover (issue 46); pages are left out. */
const MACHINE = MACHINE_PATHS;

/**
 * Issue 46, first step: `GET /api/v1/openapi.json` is OpenAPI 3.1 generated from the route tables
 * of `pnpm start`, valid by a real validator (@seriousme/openapi-schema-validator), with every
 * documented route in it under its security scheme and scope. A documented route's schemas
 * validate its input (a refused query is the usual 422) and, in the whole suite
 * (FERRY_API_CONFORMANCE=fail), its answers. A machine route without a description fails the
 * test: every one must carry its doc.
 */
describe('the OpenAPI description of pnpm start', () => {
  let ferry: FerryHarness;
  let description: {
    openapi: string;
    paths: Record<string, Record<string, { security: Record<string, string[]>[] }>>;
  };

  beforeAll(async () => {
    ferry = await startFerry();
    const answer = await fetch(`${ferry.url}/api/v1/openapi.json`);
    expect(answer.status).toBe(200);
    description = (await answer.json()) as typeof description;
  });
  afterAll(async () => {
    await ferry?.close();
  });

  it('is valid OpenAPI 3.1 and holds every documented route, with its scope', async () => {
    expect(description.openapi).toBe('3.1.0');
    const result = await new Validator().validate(description);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);

    const documented = mountedRoutes().filter((route) => route.doc && MACHINE.test(route.pattern));
    expect(documented.length).toBeGreaterThanOrEqual(3);
    for (const route of documented) {
      const operation = description.paths[openApiPath(route.pattern)]?.[route.method];
      expect(operation, `${route.method} ${route.pattern}`).toBeDefined();
      if (route.access.kind === 'scope') {
        expect(operation!.security).toEqual([{ apiToken: [route.access.rule] }]);
      }
    }
    expect(description.paths['/api/v1/errors/{groupId}']?.get).toBeDefined();
    // Outgoing: every event type of the catalog is a webhook, with its signature headers.
    const webhooks = (description as unknown as { webhooks: Record<string, unknown> }).webhooks;
    expect(Object.keys(webhooks)).toEqual(
      expect.arrayContaining(['feedback.created', 'webhook.test']),
    );
    expect(JSON.stringify(webhooks['error.group.regressed'])).toContain('webhook-signature');

    const machine = mountedRoutes().filter(
      (route) => MACHINE.test(route.pattern) && route.method !== 'options',
    );
    const missing = machine.filter((route) => !route.doc);
    // Every machine route of every service's table is described: a new one without its doc fails.
    expect(missing.map((route) => `${route.method.toUpperCase()} ${route.pattern}`)).toEqual([]);
  });

  it('is committed as docs/openapi.json, exactly as generated', () => {
    const generated = ferryOpenApiDocument(COMMITTED_SERVER);
    // `FERRY_WRITE_OPENAPI=1 pnpm test services/all/test/openapi.test.ts` writes it afresh.
    if (process.env.FERRY_WRITE_OPENAPI === '1') {
      writeFileSync(COMMITTED, `${JSON.stringify(generated, null, 2)}\n`);
    }
    const committed = JSON.parse(readFileSync(COMMITTED, 'utf8')) as unknown;
    expect(
      openApiDrift(committed, generated),
      'docs/openapi.json differs from the routes: run FERRY_WRITE_OPENAPI=1 pnpm test services/all/test/openapi.test.ts and commit it',
    ).toBeUndefined();
    // The check sees a change anywhere: a summary edited, an operation gone, a field added.
    const edited = structuredClone(committed) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    edited.paths['/api/v1/errors']!.get!.summary = 'List every error';
    expect(openApiDrift(edited, generated)).toBe(
      '$.paths./api/v1/errors.get.summary: committed "List every error", generated "List error groups"',
    );
    const fewer = structuredClone(committed) as { paths: Record<string, unknown> };
    delete fewer.paths['/api/v1/errors'];
    expect(openApiDrift(fewer, generated)).toBe(
      '$.paths./api/v1/errors: in the generated description only',
    );
  });

  it('validates a documented route’s input and answers with what it describes', async () => {
    const workspace = await createWorkspace(ferry.ctx.db);
    const token = await createApiToken(ferry.ctx.db, workspace, { scopes: ['tenant:write'] });
    const get = (path: string) =>
      fetch(`${ferry.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token.raw}` } });

    const refused = await get('/errors?page=0&status=sideways');
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      error: { code: 'validation_failed', fields: { page: expect.any(String) as string } },
    });

    const report = await fetch(`${ferry.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant': workspace.public_key },
      body: JSON.stringify({
        errors: [{ error_class: 'TypeError', message: 'x is undefined', backtrace: ['app.js:1'] }],
      }),
    });
    expect(report.status).toBe(202);
    const { ids } = (await report.json()) as { ids: string[] };
    let list: { groups: { id: string }[] } = { groups: [] };
    await waitUntil(async () => {
      const answer = await get('/errors');
      // Conformance is on: a 200 here means the answer matched its description.
      expect(answer.status).toBe(200);
      list = (await answer.json()) as typeof list;
      return list.groups.length === 1;
    }, 'the reported error stored as a group, listed by GET /api/v1/errors');
    expect((await get(`/errors/${list.groups[0]!.id}`)).status).toBe(200);
    expect((await get(`/errors/occurrences/${ids[0]}`)).status).toBe(200);
    // An error answer is described too (the default response: the error body).
    expect((await get('/errors/egr_00000000000000000000000000')).status).toBe(404);
  });
});
