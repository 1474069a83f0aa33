import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorGroup, Workspace } from '@ferry/db';
import {
  createApiToken,
  createErrorGroup,
  createErrorOccurrence,
  createWorkspace,
} from '@ferry/testing';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

interface TicketJson {
  id: string;
  title: string | null;
  note: string;
  error_group_id: string | null;
  conversation: { room_id: string };
  page: { url: string | null };
  dispatches: unknown[];
}

/**
 * Issue 26, part 3: "Fix with agent" on an error group files one ticket from it (API and the group
 * page's button), linked both ways; asking again opens the same ticket. The ticket is filed through
 * fileFeedback, so its feedback_filed event (what the agent gateway hands to a connected local
 * agent) is written with it.
 */
describe('fix with agent', () => {
  let web: WebHarness;
  let workspace: Workspace;
  let writer: string;
  let reader: string;
  let group: ErrorGroup;

  beforeAll(async () => {
    web = await startWeb();
    const { db } = web.ctx;
    workspace = await createWorkspace(db);
    writer = (await createApiToken(db, workspace, { scopes: ['tenant:write'] })).raw;
    reader = (await createApiToken(db, workspace, { scopes: ['tenant:read'] })).raw;
    group = await createErrorGroup(db, workspace, {
      error_class: 'NoMethodError',
      latest_message: "undefined method `total' for nil",
    });
    await createErrorOccurrence(db, group, {
      backtrace: [
        'app/models/cart.rb:12:in `total`',
        'app/controllers/carts_controller.rb:8:in `show`',
      ],
      url: 'https://shop.example/carts/7',
      request_method: 'GET',
      environment: 'production',
      app_version: '2.4.1',
      context: { user_id: 42 },
    });
  });
  afterAll(async () => {
    await web.close();
  });

  function fileViaApi(groupId: string, token = writer): Promise<Response> {
    return fetch(`${web.url}/api/v1/errors/${groupId}/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
  }

  it('files one ticket with the class, message, culprit and latest backtrace; again: the same one', async () => {
    const first = await fileViaApi(group.id);
    expect(first.status).toBe(201);
    const ticket = (await first.json()) as TicketJson;
    expect(first.headers.get('location')).toBe(`/api/v1/feedback/${ticket.id}`);
    expect(ticket.error_group_id).toBe(group.id);
    expect(ticket.title).toBe("NoMethodError: undefined method `total' for nil");
    expect(ticket.note).toContain("NoMethodError: undefined method `total' for nil");
    expect(ticket.note).toContain('Culprit: `app/models/cart.rb:12:in `total``');
    expect(ticket.note).toContain('app/controllers/carts_controller.rb:8:in `show`');
    expect(ticket.note).toContain(
      'environment production, release 2.4.1, GET https://shop.example/carts/7',
    );
    expect(ticket.note).toContain('"user_id": 42');
    expect(ticket.page.url).toBe('https://shop.example/carts/7');

    const again = await fileViaApi(group.id);
    expect(again.status).toBe(200);
    expect(((await again.json()) as TicketJson).id).toBe(ticket.id);

    const events = await web.ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('type', '=', 'feedback_filed')
      .execute();
    expect(events.filter((e) => JSON.stringify(e.payload).includes(ticket.id))).toHaveLength(1);
  });

  it('files exactly one ticket when asked twice at once', async () => {
    const other = await createErrorGroup(web.ctx.db, workspace, { error_class: 'RaceError' });
    const answers = await Promise.all([fileViaApi(other.id), fileViaApi(other.id)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 201]);
    const ids = await Promise.all(answers.map(async (a) => ((await a.json()) as TicketJson).id));
    expect(ids[0]).toBe(ids[1]);
    const rows = await web.ctx.db
      .selectFrom('feedback')
      .select('id')
      .where('error_group_id', '=', other.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('answers 403 to a read token, 404 for another workspace’s group or an unknown id, 401 without a token', async () => {
    expect((await fileViaApi(group.id, reader)).status).toBe(403);
    const elsewhere = await createWorkspace(web.ctx.db);
    const theirs = await createErrorGroup(web.ctx.db, elsewhere, {});
    expect((await fileViaApi(theirs.id)).status).toBe(404);
    expect((await fileViaApi('egr_nope')).status).toBe(404);
    const anonymous = await fetch(`${web.url}/api/v1/errors/${group.id}/feedback`, {
      method: 'POST',
    });
    expect(anonymous.status).toBe(401);
  });

  it('the group page’s button files it and opens the ticket; the ticket and the group link to each other', async () => {
    const { workspace: ws, client, base } = await signedInSeat(web, 'member');
    const fresh = await createErrorGroup(web.ctx.db, ws, { error_class: 'TypeError' });
    await createErrorOccurrence(web.ctx.db, fresh);
    const groupPath = `${base}/errors/${fresh.id}`;
    const before = await client.get(groupPath);
    expect(before.text).toContain('Fix with agent');

    const filed = await client.post(`${groupPath}/feedback`, {}, { csrfFrom: groupPath });
    expect(filed.status).toBe(303);
    expect(filed.location).toMatch(new RegExp(`^${base}/feedback/fbk_`));
    const ticketPage = await client.get(filed.location!);
    expect(ticketPage.text).toContain('Filed from the error');
    expect(ticketPage.text).toContain(`href="${groupPath}"`);

    const after = await client.get(groupPath);
    expect(after.text).not.toContain('>Fix with agent<');
    expect(after.text).toContain(`href="${filed.location}"`);

    const second = await client.post(`${groupPath}/feedback`, {}, { csrfFrom: groupPath });
    expect(second.location).toBe(filed.location);
  });

  it('refuses a guest (who may not read errors) the button’s post', async () => {
    const { workspace: ws, client, base } = await signedInSeat(web, 'guest');
    const theirs = await createErrorGroup(web.ctx.db, ws, {});
    const refused = await client.post(
      `${base}/errors/${theirs.id}/feedback`,
      {},
      { csrfFrom: base },
    );
    expect(refused.status).toBe(403);
    const rows = await web.ctx.db
      .selectFrom('feedback')
      .select('id')
      .where('error_group_id', '=', theirs.id)
      .execute();
    expect(rows).toHaveLength(0);
  });
});
