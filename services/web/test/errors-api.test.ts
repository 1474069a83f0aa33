import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorGroup, ErrorSource, Workspace } from '@ferry/db';
import {
  createApiToken,
  createErrorGroup,
  createErrorOccurrence,
  createVisitor,
  createWorkspace,
} from '@ferry/testing';
import { startWeb, type WebHarness } from './harness.js';

interface ErrorJson {
  error: { code: string; message: string; fields?: Record<string, string> };
}

interface GroupJson {
  id: string;
  error_class: string;
  latest_message: string;
  source: ErrorSource;
  occurrence_count: number;
  first_seen_at: string;
  last_seen_at: string;
  status: 'unresolved' | 'resolved' | 'ignored';
  regressed_at: string | null;
  environments: string[];
  assignee_id: string | null;
  first_release: string | null;
  last_release: string | null;
  resolved_in_release: string | null;
}

interface ListJson {
  groups: GroupJson[];
  page: number;
  per_page: number;
  total_groups: number;
  total_occurrences: number;
}

const SOURCES: ErrorSource[] = ['ruby', 'js', 'api', 'mobile', 'node', 'python', 'php'];

describe('errors read API', () => {
  let web: WebHarness;
  let workspace: Workspace;
  let reader: string;
  let writer: string;
  let groups: ErrorGroup[];
  beforeAll(async () => {
    web = await startWeb();
    workspace = await createWorkspace(web.ctx.db);
    reader = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:read'] })).raw;
    writer = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
    const start = Date.parse('2026-11-01T00:00:00Z');
    groups = [];
    for (let i = 0; i < 32; i++) {
      groups.push(
        await createErrorGroup(web.ctx.db, workspace, {
          error_class: `Error${i}`,
          latest_message: `Message ${i}`,
          source: SOURCES[i % SOURCES.length]!,
          occurrence_count: 1_000 + i,
          first_seen_at: new Date(start),
          last_seen_at: new Date(start + i * 60_000),
        }),
      );
    }
  });
  afterAll(async () => {
    await web.close();
  });

  function get(path: string, token: string | null = reader): Promise<Response> {
    return fetch(`${web.url}/api/v1/errors${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  }

  it('lists groups most recently seen first, 25 a page, with totals', async () => {
    await createErrorOccurrence(web.ctx.db, groups[0]!);
    await createErrorOccurrence(web.ctx.db, groups[1]!);
    const res = await get('');
    expect(res.status).toBe(200);
    const body = (await res.json()) as ListJson;
    expect(body.page).toBe(1);
    expect(body.per_page).toBe(25);
    expect(body.total_groups).toBe(32);
    expect(body.total_occurrences).toBe(2);
    expect(body.groups).toHaveLength(25);
    expect(body.groups.map((g) => g.error_class).slice(0, 3)).toEqual([
      'Error31',
      'Error30',
      'Error29',
    ]);
    const g31 = groups[31]!;
    expect(body.groups[0]).toEqual({
      id: g31.id,
      error_class: 'Error31',
      latest_message: 'Message 31',
      source: SOURCES[31 % 7],
      occurrence_count: 1_031,
      first_seen_at: '2026-11-01T00:00:00.000Z',
      last_seen_at: '2026-11-01T00:31:00.000Z',
      status: 'unresolved',
      regressed_at: null,
      environments: [],
      // Issue 43: added beside the fields clients had; nobody is assigned.
      assignee_id: null,
      // Issue 43, releases: added beside them too.
      first_release: null,
      last_release: null,
      resolved_in_release: null,
    });

    const second = (await (await get('?page=2', writer)).json()) as ListJson;
    expect(second.page).toBe(2);
    expect(second.groups.map((g) => g.error_class)).toEqual(
      [6, 5, 4, 3, 2, 1, 0].map((i) => `Error${i}`),
    );
    const beyond = (await (await get('?page=3')).json()) as ListJson;
    expect(beyond.groups).toEqual([]);

    const js = (await (await get('?source=js&page=1')).json()) as ListJson;
    expect(js.total_groups).toBe(5); // 1, 8, 15, 22, 29
    expect(js.groups.map((g) => g.error_class)).toEqual([
      'Error29',
      'Error22',
      'Error15',
      'Error8',
      'Error1',
    ]);
    expect(js.total_occurrences).toBe(2);
    // Empty values, as a form would send them, mean "not given".
    const blank = (await (await get('?source=&page=')).json()) as ListJson;
    expect(blank.total_groups).toBe(32);
  });

  it('rejects a bad source or page with 422 validation_failed', async () => {
    for (const query of [
      '?source=cobol',
      '?source=JS',
      '?page=0',
      '?page=abc',
      '?page=1.5',
      '?status=open',
      `?q=${'x'.repeat(201)}`,
      `?environment=${'e'.repeat(41)}`,
    ]) {
      const res = await get(query);
      expect(res.status).toBe(422);
      const body = (await res.json()) as ErrorJson;
      expect(body.error.code).toBe('validation_failed');
      expect(body.error.message).toMatch(/source|page|status|q|environment/);
    }
  });

  it('needs a token with tenant:read or tenant:write', async () => {
    const none = await get('', null);
    expect(none.status).toBe(401);
    expect(((await none.json()) as ErrorJson).error.code).toBe('invalid_token');
    const junk = await get('', 'fry_nope');
    expect(junk.status).toBe(401);
    const revoked = (await createApiToken(web.ctx.db, workspace, { revoked: true })).raw;
    expect((await get('', revoked)).status).toBe(401);
    const dispatcher = (
      await createApiToken(web.ctx.db, workspace, { scopes: ['platform:dispatch'] })
    ).raw;
    for (const path of ['', `/${groups[0]!.id}`, '/occurrences/err_00000000000000000000000000']) {
      const res = await get(path, dispatcher);
      expect(res.status).toBe(403);
      expect(((await res.json()) as ErrorJson).error.code).toBe('insufficient_scope');
    }
    expect((await get(`/${groups[0]!.id}`, null)).status).toBe(401);
  });

  it('returns a group with its latest 100 occurrences, and one occurrence exactly as stored', async () => {
    const group = await createErrorGroup(web.ctx.db, workspace, {
      error_class: 'TypeError',
      source: 'js',
      occurrence_count: 130,
    });
    const start = Date.parse('2026-11-03T00:00:00Z');
    for (let i = 0; i < 102; i++) {
      await createErrorOccurrence(web.ctx.db, group, {
        message: `m${i}`,
        occurred_at: new Date(start + i * 1000),
      });
    }
    const visitor = await createVisitor(web.ctx.db, workspace);
    const stored = await createErrorOccurrence(web.ctx.db, group, {
      error_class: 'TypeError',
      message: 'x'.repeat(1_000),
      backtrace: ['at pay (checkout.js:10:5)', 'at HTMLButtonElement.onclick (index.html:1:1)'],
      url: 'https://shop.example.test/checkout',
      request_method: 'GET',
      request_path: '/checkout',
      environment: 'browser',
      app_version: '2026.11.3',
      context: { nested: { deep: [1, 'two', null] }, flag: true },
      source: 'js',
      occurred_at: new Date('2026-11-03T00:10:00.123Z'),
      received_at: new Date('2026-11-03T00:10:01.456Z'),
      visitor_id: visitor.id,
    });

    const res = await get(`/${group.id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      group: GroupJson;
      occurrences: Record<string, unknown>[];
    };
    expect(body.group.id).toBe(group.id);
    expect(body.group.occurrence_count).toBe(130);
    expect(body.occurrences).toHaveLength(100);
    expect(body.occurrences[0]!.id).toBe(stored.id);
    expect(body.occurrences[1]!.message).toBe('m101');
    expect(body.occurrences[99]!.message).toBe('m3');

    const one = await get(`/occurrences/${stored.id}`, writer);
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({
      id: stored.id,
      group_id: group.id,
      error_class: 'TypeError',
      message: 'x'.repeat(1_000),
      backtrace: ['at pay (checkout.js:10:5)', 'at HTMLButtonElement.onclick (index.html:1:1)'],
      url: 'https://shop.example.test/checkout',
      request_method: 'GET',
      request_path: '/checkout',
      environment: 'browser',
      app_version: '2026.11.3',
      context: { nested: { deep: [1, 'two', null] }, flag: true },
      occurred_at: '2026-11-03T00:10:00.123Z',
      received_at: '2026-11-03T00:10:01.456Z',
      source: 'js',
      visitor_id: visitor.id,
      // A report from /ingest/errors has no structured detail (issue 41).
      detail: null,
    });
    expect(body.occurrences[0]).toEqual(await (await get(`/occurrences/${stored.id}`)).json());
  });

  it("answers 404 for unknown, junk and other workspaces' ids", async () => {
    const other = await createWorkspace(web.ctx.db);
    const foreignGroup = await createErrorGroup(web.ctx.db, other);
    const foreignOccurrence = await createErrorOccurrence(web.ctx.db, foreignGroup);
    for (const path of [
      `/${foreignGroup.id}`,
      '/egr_00000000000000000000000000',
      '/junk',
      `/${foreignOccurrence.id}`,
      `/occurrences/${foreignOccurrence.id}`,
      '/occurrences/err_00000000000000000000000000',
      `/occurrences/${groups[0]!.id}`,
      '/occurrences/junk',
    ]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorJson).error.code).toBe('not_found');
    }
  });

  describe('triage', () => {
    let triage: Workspace;
    let read: string;
    let write: string;
    let payments: ErrorGroup;
    let flaky: ErrorGroup;
    let noisy: ErrorGroup;
    beforeAll(async () => {
      const db = web.ctx.db;
      triage = await createWorkspace(db);
      read = (await createApiToken(db, triage, { scopes: ['tenant:read'] })).raw;
      write = (await createApiToken(db, triage, { scopes: ['tenant:write'] })).raw;
      const at = (minutes: number) =>
        new Date(Date.parse('2026-11-10T00:00:00Z') + minutes * 60_000);
      payments = await createErrorGroup(db, triage, {
        error_class: 'Stripe::CardError',
        latest_message: 'Your card was declined (100% sure_thing)',
        environments: ['production'],
        last_seen_at: at(3),
      });
      flaky = await createErrorGroup(db, triage, {
        error_class: 'Net::ReadTimeout',
        latest_message: 'Net::ReadTimeout with #<TCPSocket:(closed)>',
        environments: ['production', 'staging'],
        status: 'resolved',
        last_seen_at: at(2),
      });
      noisy = await createErrorGroup(db, triage, {
        error_class: 'ActionController::RoutingError',
        latest_message: 'No route matches [GET] "/wp-login.php"',
        environments: ['staging'],
        status: 'ignored',
        last_seen_at: at(1),
      });
    });

    function call(method: string, path: string, token: string | null, body?: string) {
      return fetch(`${web.url}/api/v1/errors${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body,
      });
    }
    const list = async (query: string) =>
      ((await (await call('GET', query, read)).json()) as ListJson).groups.map(
        (g) => g.error_class,
      );

    it('filters by status (every status by default), environment and search', async () => {
      expect(await list('')).toEqual([
        'Stripe::CardError',
        'Net::ReadTimeout',
        'ActionController::RoutingError',
      ]);
      expect(await list('?status=all')).toHaveLength(3);
      expect(await list('?status=unresolved')).toEqual(['Stripe::CardError']);
      expect(await list('?status=resolved')).toEqual(['Net::ReadTimeout']);
      expect(await list('?status=ignored')).toEqual(['ActionController::RoutingError']);
      expect(await list('?environment=staging')).toEqual([
        'Net::ReadTimeout',
        'ActionController::RoutingError',
      ]);
      expect(await list('?environment=production&status=unresolved')).toEqual([
        'Stripe::CardError',
      ]);
      // Case-insensitive, over the class and the latest message.
      expect(await list('?q=readtimeout')).toEqual(['Net::ReadTimeout']);
      expect(await list('?q=WP-LOGIN')).toEqual(['ActionController::RoutingError']);
      // LIKE wildcards match themselves only.
      expect(await list(`?q=${encodeURIComponent('100%')}`)).toEqual(['Stripe::CardError']);
      expect(await list(`?q=${encodeURIComponent('%')}`)).toEqual(['Stripe::CardError']);
      expect(await list('?q=sure_thing')).toEqual(['Stripe::CardError']);
      expect(await list('?q=sure_')).toEqual(['Stripe::CardError']);
      expect(await list('?q=_')).toEqual(['Stripe::CardError']);
      // NUL and broken escapes are text like any other: no match, no 5xx.
      for (const query of ['?q=%00', '?environment=%00', '?q=%ED%A0%80', '?q=%zz']) {
        const res = await call('GET', query, read);
        expect(res.status).toBeLessThan(500);
      }
      expect(await list('?q=%00')).toEqual([]);
      const none = (await (await call('GET', '?q=nothing-like-this', read)).json()) as ListJson;
      expect(none).toMatchObject({ groups: [], total_groups: 0 });
      const one = (await (await call('GET', '?status=resolved', read)).json()) as ListJson;
      expect(one.total_groups).toBe(1);
      const group = (await (await call('GET', `/${flaky.id}`, read)).json()) as {
        group: GroupJson;
      };
      expect(group.group).toMatchObject({
        status: 'resolved',
        regressed_at: null,
        environments: ['production', 'staging'],
      });
    });

    it('PATCH sets the status with a tenant:write token', async () => {
      const res = await call('PATCH', `/${payments.id}`, write, '{"status":"resolved"}');
      expect(res.status).toBe(200);
      const body = (await res.json()) as { group: GroupJson };
      expect(body.group).toMatchObject({ id: payments.id, status: 'resolved', regressed_at: null });
      expect(await list('?status=resolved')).toEqual(['Stripe::CardError', 'Net::ReadTimeout']);

      // Setting the status clears a regression mark.
      await web.ctx.db
        .updateTable('error_groups')
        .set({ status: 'unresolved', regressed_at: new Date('2026-11-10T01:00:00Z') })
        .where('id', '=', flaky.id)
        .execute();
      const regressed = (await (await call('GET', `/${flaky.id}`, read)).json()) as {
        group: GroupJson;
      };
      expect(regressed.group).toMatchObject({
        status: 'unresolved',
        regressed_at: '2026-11-10T01:00:00.000Z',
      });
      const ignored = await call('PATCH', `/${flaky.id}`, write, '{"status":"ignored"}');
      expect(((await ignored.json()) as { group: GroupJson }).group).toMatchObject({
        status: 'ignored',
        regressed_at: null,
      });
      const back = await call('PATCH', `/${noisy.id}`, write, '{"status":"unresolved"}');
      expect(((await back.json()) as { group: GroupJson }).group.status).toBe('unresolved');
    });

    it('PATCH needs tenant:write, a known group, a valid status and JSON', async () => {
      const before = await web.ctx.db
        .selectFrom('error_groups')
        .select(['id', 'status'])
        .where('workspace_id', '=', triage.id)
        .orderBy('id')
        .execute();

      const readOnly = await call('PATCH', `/${payments.id}`, read, '{"status":"ignored"}');
      expect(readOnly.status).toBe(403);
      expect(((await readOnly.json()) as ErrorJson).error.code).toBe('insufficient_scope');
      const anonymous = await call('PATCH', `/${payments.id}`, null, '{"status":"ignored"}');
      expect(anonymous.status).toBe(401);

      const foreign = await createErrorGroup(web.ctx.db, workspace);
      for (const path of [`/${foreign.id}`, '/egr_00000000000000000000000000', '/junk']) {
        const res = await call('PATCH', path, write, '{"status":"ignored"}');
        expect(res.status).toBe(404);
        expect(((await res.json()) as ErrorJson).error.code).toBe('not_found');
      }
      expect(
        (
          await web.ctx.db
            .selectFrom('error_groups')
            .select('status')
            .where('id', '=', foreign.id)
            .executeTakeFirstOrThrow()
        ).status,
      ).toBe('unresolved');

      for (const body of ['{"status":"closed"}', '{}', '{"status":null}', '[]']) {
        const res = await call('PATCH', `/${payments.id}`, write, body);
        expect(res.status).toBe(422);
        const error = ((await res.json()) as ErrorJson).error;
        expect(error.code).toBe('validation_failed');
        expect(error.fields).toBeDefined();
      }
      const bad = await call('PATCH', `/${payments.id}`, write, '{"status":"closed"}');
      expect(((await bad.json()) as ErrorJson).error.fields).toEqual({
        status: 'Must be one of unresolved, resolved, ignored.',
      });

      for (const body of ['{"status":', 'status=resolved', '"resolved"']) {
        const res = await call('PATCH', `/${payments.id}`, write, body);
        expect(res.status).toBe(400);
        expect(((await res.json()) as ErrorJson).error.code).toBe('invalid_json');
      }
      const noType = await fetch(`${web.url}/api/v1/errors/${payments.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${write}` },
        body: '{"status":"ignored"}',
      });
      expect(noType.status).toBe(400);
      expect(((await noType.json()) as ErrorJson).error.code).toBe('invalid_json');

      const after = await web.ctx.db
        .selectFrom('error_groups')
        .select(['id', 'status'])
        .where('workspace_id', '=', triage.id)
        .orderBy('id')
        .execute();
      expect(after).toEqual(before);
    });
  });
});
