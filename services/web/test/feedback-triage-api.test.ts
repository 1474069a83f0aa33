import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import {
  createApiToken,
  createFeedback,
  createMember,
  createUser,
  createWorkspace,
} from '@ferry/testing';
import { startWeb, type WebHarness } from './harness.js';

interface ErrorJson {
  error: { code: string; message: string; fields?: Record<string, string> };
}
interface TicketJson {
  id: string;
  status: string;
  assignee: { id: string; name: string } | null;
  title: string;
}

describe('feedback triage API', () => {
  let web: WebHarness;
  let workspace: Workspace;
  let writer: string;
  let reader: string;
  beforeAll(async () => {
    web = await startWeb();
    workspace = await createWorkspace(web.ctx.db);
    writer = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
    reader = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:read'] })).raw;
  });
  afterAll(async () => {
    await web.close();
  });

  function call(
    method: string,
    path: string,
    options: { token?: string | null; body?: string; type?: string } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? writer : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = options.type ?? 'application/json';
    return fetch(`${web.url}/api/v1/feedback${path}`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
  }
  const patch = (id: string, body: unknown, token?: string) =>
    call('PATCH', `/${id}`, { body: JSON.stringify(body), ...(token ? { token } : {}) });

  async function notices(roomId: string): Promise<string[]> {
    const rows = await web.ctx.db
      .selectFrom('messages')
      .select('body')
      .where('room_id', '=', roomId)
      .where('author_kind', '=', 'system')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.body);
  }

  it('exposes status and assignee on GET and changes both with PATCH, noting each change', async () => {
    const grace = await createMember(web.ctx.db, workspace, {
      user: await createUser(web.ctx.db, { name: 'Grace Hopper' }),
    });
    const ticket = await createFeedback(web.ctx.db, workspace);
    const before = (await (
      await call('GET', `/${ticket.id}`, { token: reader })
    ).json()) as TicketJson;
    expect(before).toMatchObject({ status: 'new', assignee: null });

    const res = await patch(ticket.id, { status: 'closed', assignee_id: grace.id });
    expect(res.status).toBe(200);
    const changed = (await res.json()) as TicketJson & { dispatches: unknown[] };
    expect(changed).toMatchObject({
      id: ticket.id,
      status: 'closed',
      assignee: { id: grace.id, name: 'Grace Hopper' },
      dispatches: [],
    });
    const read = (await (
      await call('GET', `/${ticket.id}`, { token: reader })
    ).json()) as TicketJson;
    expect(read).toMatchObject({
      status: 'closed',
      assignee: { id: grace.id, name: 'Grace Hopper' },
    });
    expect(await notices(ticket.room_id)).toEqual([
      'Closed this through the API',
      'Assigned to Grace Hopper through the API',
    ]);

    // Asking for what already is changes nothing and notes nothing.
    expect((await patch(ticket.id, { status: 'closed' })).status).toBe(200);
    expect(await notices(ticket.room_id)).toHaveLength(2);

    const reopened = (await (
      await patch(ticket.id, { status: 'new', assignee_id: null })
    ).json()) as TicketJson;
    expect(reopened).toMatchObject({ status: 'new', assignee: null });
    expect((await notices(ticket.room_id)).slice(2)).toEqual([
      'Reopened this through the API',
      'Grace Hopper unassigned through the API',
    ]);
  });

  it('refuses with the same error shapes as the other APIs', async () => {
    const ticket = await createFeedback(web.ctx.db, workspace);
    const other = await createWorkspace(web.ctx.db);
    const stranger = await createMember(web.ctx.db, other);
    const leaver = await createMember(web.ctx.db, workspace, { left: true });
    const guest = await createMember(web.ctx.db, workspace, { role: 'guest' });
    const othersTicket = await createFeedback(web.ctx.db, other);

    const noToken = await call('PATCH', `/${ticket.id}`, {
      token: null,
      body: '{"status":"closed"}',
    });
    expect(noToken.status).toBe(401);
    const wrongScope = await patch(ticket.id, { status: 'closed' }, reader);
    expect(wrongScope.status).toBe(403);
    expect(((await wrongScope.json()) as ErrorJson).error.code).toBe('insufficient_scope');
    for (const id of [othersTicket.id, 'fbk_nope', 'nothing']) {
      const res = await patch(id, { status: 'closed' });
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorJson).error.code).toBe('not_found');
    }
    for (const [body, type] of [
      ['{"status": ', 'application/json'],
      ['status=closed', 'application/x-www-form-urlencoded'],
    ] as const) {
      const res = await call('PATCH', `/${ticket.id}`, { body, type });
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorJson).error.code).toBe('invalid_json');
    }
    const cases: [unknown, string[]][] = [
      [{ status: 'done' }, ['status']],
      [{ status: 3 }, ['status']],
      [{ assignee_id: stranger.id }, ['assignee_id']],
      [{ assignee_id: leaver.id }, ['assignee_id']],
      [{ assignee_id: guest.id }, ['assignee_id']],
      [{ assignee_id: 'mem_nobody' }, ['assignee_id']],
      [{ assignee_id: 12 }, ['assignee_id']],
      [{}, ['_']],
      [[], ['_']],
      [{ status: 'closed', title: 'x' }, ['_']],
    ];
    for (const [body, fields] of cases) {
      const res = await patch(ticket.id, body);
      expect(res.status).toBe(422);
      const json = (await res.json()) as ErrorJson;
      expect(json.error.code).toBe('validation_failed');
      expect(Object.keys(json.error.fields ?? {})).toEqual(fields);
    }
    // Nothing was changed or noted by any refusal.
    const after = (await (await call('GET', `/${ticket.id}`)).json()) as TicketJson;
    expect(after).toMatchObject({ status: 'new', assignee: null });
    expect(await notices(ticket.room_id)).toEqual([]);
  });

  it('filters the list by status, assignee and search, combinable with paging', async () => {
    const ws = await createWorkspace(web.ctx.db);
    const token = (await createApiToken(web.ctx.db, ws, { scopes: ['tenant:read'] })).raw;
    const ada = await createMember(web.ctx.db, ws);
    for (let i = 0; i < 30; i++) {
      await createFeedback(web.ctx.db, ws, {
        title: `T${i}`,
        status: i % 3 === 0 ? 'closed' : i % 3 === 1 ? 'triaged' : 'new',
        assignee_member_id: i < 28 ? ada.id : null,
        note: i === 5 ? 'Checkout shows 100%_off banner' : `Plain note ${i}`,
        reporter_label: i === 7 ? 'Zoë Müller' : 'Ada',
        reporter_email: i === 8 ? 'Billing@Example.test' : 'ada@example.test',
      });
    }
    const list = async (query: string) => {
      const res = await call('GET', query, { token });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { feedback: TicketJson[]; has_more: boolean };
      return { titles: body.feedback.map((f) => f.title), body };
    };
    expect((await list('?status=closed')).titles).toHaveLength(10);
    expect((await list('?status=all')).titles).toHaveLength(25);
    expect((await list('?assignee=none')).titles).toEqual(['T29', 'T28']);
    const mine = await list(`?assignee=${ada.id}&status=triaged`);
    expect(mine.titles).toEqual(['T25', 'T22', 'T19', 'T16', 'T13', 'T10', 'T7', 'T4', 'T1']);
    expect(mine.body.feedback[0]!.assignee).toEqual({ id: ada.id, name: ada.user.name });
    // Wildcards typed into a search are literal; case does not matter; reporter fields count.
    expect((await list(`?q=${encodeURIComponent('100%_OFF')}`)).titles).toEqual(['T5']);
    expect((await list(`?q=${encodeURIComponent('%')}`)).titles).toEqual(['T5']);
    expect((await list(`?q=${encodeURIComponent('_')}`)).titles).toEqual(['T5']);
    expect((await list('?q=zo%C3%AB')).titles).toEqual(['T7']);
    expect((await list('?q=billing%40')).titles).toEqual(['T8']);
    const page2 = await list('?q=plain+note&page=2');
    // 29 plain notes (all but T5): 25 on the first page, 4 on the second.
    expect(page2.titles).toEqual(['T3', 'T2', 'T1', 'T0']);
    expect(page2.body.has_more).toBe(false);

    for (const query of [
      '?status=open',
      '?assignee=me',
      '?assignee=bob',
      `?q=${'x'.repeat(201)}`,
    ]) {
      const res = await call('GET', query, { token });
      expect(res.status).toBe(422);
      const body = (await res.json()) as ErrorJson;
      expect(body.error.code).toBe('validation_failed');
      expect(Object.keys(body.error.fields ?? {})).toEqual([query.slice(1).split('=')[0]]);
    }
  });
});
