import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import { createApiToken, createFeedback, createWorkspace } from '@ferry/testing';
import { startWeb, type WebHarness } from './harness.js';

interface ErrorJson {
  error: { code: string; message: string; fields?: Record<string, string> };
}

const FULL = {
  note: 'Clicking Pay does nothing on Safari 17.\nIt worked yesterday.',
  title: 'Pay button is dead',
  reporter: { label: 'Ada', role: 'customer', email: 'ada@example.test' },
  page: {
    url: 'https://shop.example.test/checkout?step=2',
    path: '/checkout',
    controller_action: 'checkout#show',
    viewport: { width: 1280, height: 800 },
    partials: ['layouts/_nav', 'checkout/_summary', 'checkout/_form'],
  },
  element: {
    selector: 'form#pay > button.primary',
    tag: 'button',
    text: 'Pay now',
    outer_html: '<button class="primary" onclick="pay()">Pay now</button>',
  },
};

describe('feedback API', () => {
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
    options: { token?: string; body?: string; type?: string } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = {};
    if (options.token ?? writer) headers.authorization = `Bearer ${options.token ?? writer}`;
    if (options.body !== undefined) headers['content-type'] = options.type ?? 'application/json';
    return fetch(`${web.url}/api/v1/feedback${path}`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
  }

  const file = (body: unknown, token?: string) =>
    call('POST', '', { body: JSON.stringify(body), ...(token ? { token } : {}) });

  async function counts(): Promise<{ feedback: number; outbox: number; rooms: number }> {
    const n = async (table: 'feedback' | 'outbox' | 'rooms') =>
      Number(
        (
          await web.ctx.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return { feedback: await n('feedback'), outbox: await n('outbox'), rooms: await n('rooms') };
  }

  it('files a ticket with its conversation room, first message and one outbox event', async () => {
    const res = await file(FULL);
    expect(res.status).toBe(201);
    const ticket = (await res.json()) as Record<string, unknown> & {
      id: string;
      conversation: { room_id: string };
    };
    expect(res.headers.get('location')).toBe(`/api/v1/feedback/${ticket.id}`);
    expect(ticket).toEqual({
      id: expect.stringMatching(/^fbk_[0-9a-z]{26}$/) as string,
      status: 'new',
      assignee: null,
      title: FULL.title,
      note: FULL.note,
      reporter: FULL.reporter,
      page: FULL.page,
      element: FULL.element,
      conversation: { room_id: expect.stringMatching(/^room_[0-9a-z]{26}$/) as string },
      visitor_id: null,
      error_group_id: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
      dispatches: [],
      linked_errors: [],
    });

    const room = await web.ctx.db
      .selectFrom('rooms')
      .selectAll()
      .where('id', '=', ticket.conversation.room_id)
      .executeTakeFirstOrThrow();
    expect(room).toMatchObject({
      workspace_id: workspace.id,
      kind: 'conversation',
      name: 'Pay button is dead',
    });
    const messages = await web.ctx.db
      .selectFrom('messages')
      .selectAll()
      .where('room_id', '=', room.id)
      .execute();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      workspace_id: workspace.id,
      author_kind: 'system',
      display_name: 'Ferry',
      metadata: { feedbackId: ticket.id },
    });
    expect(messages[0]!.body).toContain('Ada (customer)');
    expect(messages[0]!.body).toContain('/checkout');
    expect(messages[0]!.body).toContain('Clicking Pay does nothing on Safari 17.');

    const events = (
      await web.ctx.db
        .selectFrom('outbox')
        .selectAll()
        .where('type', '=', 'feedback_filed')
        .execute()
    ).filter((e) => (e.payload as { feedbackId?: string }).feedbackId === ticket.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toEqual({ feedbackId: ticket.id, workspaceId: workspace.id });
    // The first message went through postMessage, so it has its own message_created event.
    const messageEvents = (
      await web.ctx.db
        .selectFrom('outbox')
        .selectAll()
        .where('type', '=', 'message_created')
        .execute()
    ).filter((e) => (e.payload as { messageId?: string }).messageId === messages[0]!.id);
    expect(messageEvents).toHaveLength(1);

    // GET answers the same ticket, with any token that may read.
    const got = await call('GET', `/${ticket.id}`, { token: reader });
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(ticket);
  });

  it('files a note alone, naming the room after its first words', async () => {
    const res = await file({
      note: '   The search box forgets my query whenever I press the back button on mobile Safari and Chrome.  ',
    });
    expect(res.status).toBe(201);
    const ticket = (await res.json()) as {
      note: string;
      title: null;
      conversation: { room_id: string };
    };
    expect(ticket).toMatchObject({
      note: 'The search box forgets my query whenever I press the back button on mobile Safari and Chrome.',
      title: null,
      reporter: { label: null, role: null, email: null },
      page: {
        url: null,
        path: null,
        controller_action: null,
        viewport: { width: null, height: null },
        partials: [],
      },
      element: { selector: null, tag: null, text: null, outer_html: null },
      dispatches: [],
    });
    const room = await web.ctx.db
      .selectFrom('rooms')
      .select('name')
      .where('id', '=', ticket.conversation.room_id)
      .executeTakeFirstOrThrow();
    expect(room.name).toBe('The search box forgets my query whenever I press the back…');

    // null and '' mean "not given" for optional fields.
    const blanks = await file({
      note: 'x',
      title: '',
      reporter: { label: null, email: '' },
      page: null,
      element: { tag: '' },
    });
    expect(blanks.status).toBe(201);
    expect(await blanks.json()).toMatchObject({
      title: null,
      reporter: { label: null, email: null },
      element: { tag: null },
    });
  });

  it('keeps every partial in order, up to 200', async () => {
    const partials = Array.from({ length: 200 }, (_, i) => `app/views/_p${i}.html.erb`);
    const res = await file({ note: 'many partials', page: { partials } });
    expect(res.status).toBe(201);
    const ticket = (await res.json()) as { id: string; page: { partials: string[] } };
    expect(ticket.page.partials).toEqual(partials);
  });

  it("answers 404 for unknown, malformed and other workspaces' tickets", async () => {
    const other = await createWorkspace(web.ctx.db);
    const foreign = await createFeedback(web.ctx.db, other);
    const foreignToken = (await createApiToken(web.ctx.db, other, { scopes: ['tenant:read'] })).raw;
    expect((await call('GET', `/${foreign.id}`, { token: foreignToken })).status).toBe(200);

    for (const id of [
      foreign.id,
      'fbk_00000000000000000000000000',
      'nope',
      'room_00000000000000000000000000',
      '%2E%2E%2F%2E%2E',
      "1' or '1'='1",
    ]) {
      const res = await call('GET', `/${encodeURIComponent(id)}`, { token: reader });
      expect(res.status).toBe(404);
      const body = (await res.json()) as ErrorJson;
      expect(body.error.code).toBe('not_found');
      expect(body.error.message).not.toContain(foreign.id);
    }
    // The list is the token's workspace only.
    const list = (await (await call('GET', '', { token: reader })).json()) as {
      feedback: { id: string }[];
    };
    expect(list.feedback.map((f) => f.id)).not.toContain(foreign.id);
  });

  it('lists tickets newest first, 25 a page, filterable by status', async () => {
    const ws = await createWorkspace(web.ctx.db);
    const token = (await createApiToken(web.ctx.db, ws, { scopes: ['tenant:write'] })).raw;
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) {
      const created = await createFeedback(web.ctx.db, ws, {
        title: `Ticket ${i}`,
        status: i % 9 === 0 ? 'triaged' : 'new',
      });
      ids.push(created.id);
    }
    const first = await call('GET', '', { token });
    expect(first.status).toBe(200);
    const page1 = (await first.json()) as {
      feedback: { id: string; title: string }[];
      page: number;
      per_page: number;
      has_more: boolean;
    };
    expect(page1).toMatchObject({ page: 1, per_page: 25, has_more: true });
    expect(page1.feedback).toHaveLength(25);
    expect(page1.feedback[0]!.title).toBe('Ticket 26');
    expect(page1.feedback).not.toHaveProperty('0.dispatches');
    const page2 = (await (await call('GET', '?page=2', { token })).json()) as {
      feedback: { title: string }[];
      has_more: boolean;
    };
    expect(page2.feedback.map((f) => f.title)).toEqual(['Ticket 1', 'Ticket 0']);
    expect(page2.has_more).toBe(false);
    const triaged = (await (await call('GET', '?status=triaged', { token })).json()) as {
      feedback: { title: string; status: string }[];
    };
    expect(triaged.feedback.map((f) => f.title)).toEqual(['Ticket 18', 'Ticket 9', 'Ticket 0']);

    for (const query of ['?page=0', '?page=abc', '?page=1.5', '?page=-1', '?status=open']) {
      const res = await call('GET', query, { token });
      expect(res.status).toBe(422);
      const body = (await res.json()) as ErrorJson;
      expect(body.error.code).toBe('validation_failed');
      expect(Object.keys(body.error.fields ?? {})).toEqual([query.slice(1).split('=')[0]]);
    }
  });

  it('refuses malformed and non-JSON bodies with 400 invalid_json', async () => {
    const before = await counts();
    for (const [body, type] of [
      ['{"note": "unterminated', 'application/json'],
      ['note=hello', 'application/x-www-form-urlencoded'],
      ['hello', 'text/plain'],
      ['"just a string"', 'application/json'],
      ['5', 'application/json'],
      ['', 'application/json'],
    ] as const) {
      const res = await call('POST', '', { body, type });
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorJson).error.code).toBe('invalid_json');
    }
    const noBody = await call('POST', '');
    expect(noBody.status).toBe(400);
    expect(((await noBody.json()) as ErrorJson).error.code).toBe('invalid_json');
    const huge = await call('POST', '', { body: JSON.stringify({ note: 'x'.repeat(300_000) }) });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as ErrorJson).error.code).toBe('payload_too_large');
    expect(await counts()).toEqual(before);
  });

  it('refuses wrong types and over-long fields with 422 naming each field', async () => {
    const before = await counts();
    const cases: [unknown, string[]][] = [
      [[], ['_']],
      [{}, ['note']],
      [{ note: 5 }, ['note']],
      [{ note: '   ' }, ['note']],
      [{ note: 'x'.repeat(10_001) }, ['note']],
      [{ note: 'ok', title: 'x'.repeat(201) }, ['title']],
      [{ note: 'ok', title: 7 }, ['title']],
      [{ note: 'ok', reporter: 'Ada' }, ['reporter']],
      [
        { note: 'ok', reporter: { label: 'x'.repeat(121), role: 'x'.repeat(121) } },
        ['reporter.label', 'reporter.role'],
      ],
      [{ note: 'ok', reporter: { email: 'not-an-email' } }, ['reporter.email']],
      [{ note: 'ok', reporter: { email: `${'a'.repeat(250)}@example.test` } }, ['reporter.email']],
      [{ note: 'ok', page: { partials: 'x' } }, ['page.partials']],
      [{ note: 'ok', page: { partials: ['ok', 5] } }, ['page.partials.1']],
      [{ note: 'ok', page: { partials: ['x'.repeat(501)] } }, ['page.partials.0']],
      [
        { note: 'ok', page: { partials: Array.from({ length: 201 }, () => 'p') } },
        ['page.partials'],
      ],
      [{ note: 'ok', page: { viewport: { width: 'a' } } }, ['page.viewport.width']],
      [
        { note: 'ok', page: { viewport: { width: 1.5, height: -1 } } },
        ['page.viewport.width', 'page.viewport.height'],
      ],
      [{ note: 'ok', page: { viewport: { width: 100_001 } } }, ['page.viewport.width']],
      [{ note: 'ok', page: { viewport: 'big' } }, ['page.viewport']],
      [
        {
          note: 'ok',
          page: {
            url: 'x'.repeat(2_001),
            path: 'x'.repeat(1_001),
            controller_action: 'x'.repeat(201),
          },
        },
        ['page.url', 'page.path', 'page.controller_action'],
      ],
      [
        {
          note: 'ok',
          element: {
            selector: 'x'.repeat(1_001),
            tag: 'x'.repeat(41),
            text: 'x'.repeat(2_001),
            outer_html: 'x'.repeat(20_001),
          },
        },
        ['element.selector', 'element.tag', 'element.text', 'element.outer_html'],
      ],
      [{ note: 'ok', element: ['button'] }, ['element']],
    ];
    for (const [body, fields] of cases) {
      const res = await file(body);
      expect(res.status).toBe(422);
      const json = (await res.json()) as ErrorJson;
      expect(json.error.code).toBe('validation_failed');
      expect(json.error.message).toMatch(/^The feedback is not valid\./);
      expect(Object.keys(json.error.fields ?? {}).sort()).toEqual([...fields].sort());
    }
    expect(await counts()).toEqual(before);
  });

  it('checks the token before anything else is written', async () => {
    const before = await counts();
    const anonymous = await fetch(`${web.url}/api/v1/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'hi' }),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const readOnly = await file({ note: 'hi' }, reader);
    expect(readOnly.status).toBe(403);
    expect(((await readOnly.json()) as ErrorJson).error.code).toBe('insufficient_scope');
    expect(await counts()).toEqual(before);
  });
});
