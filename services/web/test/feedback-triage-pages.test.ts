import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@ferry/db';
import {
  createFeedback,
  createMember,
  createMessage,
  createUser,
  createWorkspace,
} from '@ferry/testing';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

describe('feedback triage pages', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  async function seated(role: Role) {
    const seated = await signedInSeat(web, role);
    return { ...seated, inbox: `${seated.base}/feedback` };
  }

  async function systemNotices(roomId: string): Promise<string[]> {
    const rows = await web.ctx.db
      .selectFrom('messages')
      .select('body')
      .where('room_id', '=', roomId)
      .where('author_kind', '=', 'system')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.body);
  }

  it('closes and assigns a ticket from its page, noting each change in the conversation', async () => {
    const { client, inbox, workspace, seat } = await seated('member');
    const grace = await createMember(web.ctx.db, workspace, {
      user: await createUser(web.ctx.db, { name: 'Grace Hopper' }),
    });
    const ticket = await createFeedback(web.ctx.db, workspace);
    const ticketPath = `${inbox}/${ticket.id}`;
    const page = await client.get(ticketPath);
    expect(page.text).toContain('<label for="triage-status">Status</label>');
    expect(page.text).toContain('<label for="triage-assignee_id">Assignee</label>');
    expect(page.text).toContain(`action="${ticketPath}/triage"`);
    expect(page.text).toMatch(/name="_csrf"/);

    const res = await client.post(
      `${ticketPath}/triage`,
      { status: 'closed', assignee_id: grace.id },
      { csrfFrom: ticketPath },
    );
    expect(res.status).toBe(303);
    expect(res.location).toBe(ticketPath);
    const after = await client.get(ticketPath);
    expect(after.text).toContain('Triage saved.');
    expect(after.text).toContain('assigned to Grace Hopper');
    expect(after.text).toMatch(/<option value="closed"\s+selected\s*>/);
    const actor = seat.user.name;
    expect(await systemNotices(ticket.room_id)).toEqual([
      `${actor} closed this`,
      `Assigned to Grace Hopper by ${actor}`,
    ]);
    // The notices render in the ticket's conversation through the room's message renderer.
    expect(after.text).toContain(`<p>${actor} closed this</p>`);
    expect(after.text).toContain('<span class="badge system"');
  });

  it('refuses an assignee who is not an active member with an inline error, changing nothing', async () => {
    const { client, inbox, workspace } = await seated('member');
    const stranger = await createMember(web.ctx.db, await createWorkspace(web.ctx.db));
    const leaver = await createMember(web.ctx.db, workspace, { left: true });
    const ticket = await createFeedback(web.ctx.db, workspace);
    const ticketPath = `${inbox}/${ticket.id}`;
    for (const assignee of [stranger.id, leaver.id, 'mem_<script>']) {
      const res = await client.post(
        `${ticketPath}/triage`,
        { status: 'closed', assignee_id: assignee },
        { csrfFrom: ticketPath },
      );
      expect(res.status).toBe(303);
      const resPage = await client.follow(res);
      expect(resPage.text).toContain('Pick an active member of this workspace.');
      expect(resPage.text).toContain('aria-describedby="triage-assignee_id-error"');
      expect(resPage.text).not.toContain('<script>');
      // What was sent stays in the form.
      expect(resPage.text).toMatch(/<option value="closed"\s+selected\s*>/);
    }
    const junk = await client.post(
      `${ticketPath}/triage`,
      { status: 'done', assignee_id: '' },
      { csrfFrom: ticketPath },
    );
    expect(junk.status).toBe(303);
    const junkPage = await client.follow(junk);
    expect(junkPage.text).toContain(
      'Must be &quot;new&quot;, &quot;triaged&quot; or &quot;closed&quot;.',
    );
    const noCsrf = await client.post(`${ticketPath}/triage`, { _csrf: '', status: 'closed' });
    expect(noCsrf.status).toBe(403);
    const row = await web.ctx.db
      .selectFrom('feedback')
      .select(['status', 'assignee_member_id'])
      .where('id', '=', ticket.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'new', assignee_member_id: null });
    expect(await systemNotices(ticket.room_id)).toEqual([]);
  });

  it('filters the inbox by status, assignee (me, nobody, someone) and search, keeping paging', async () => {
    const { client, inbox, workspace, seat } = await seated('member');
    const grace = await createMember(web.ctx.db, workspace, {
      user: await createUser(web.ctx.db, { name: 'Grace Hopper' }),
    });
    const specs = [
      { title: 'Mine and new', assignee_member_id: seat.id, status: 'new' as const },
      { title: 'Mine and closed', assignee_member_id: seat.id, status: 'closed' as const },
      { title: 'Grace triaged', assignee_member_id: grace.id, status: 'triaged' as const },
      { title: 'Nobody new', note: 'Refund shows 50%_off twice', status: 'new' as const },
    ];
    for (const spec of specs) await createFeedback(web.ctx.db, workspace, spec);
    for (let i = 0; i < 26; i++) {
      await createFeedback(web.ctx.db, workspace, {
        title: `Bulk ${i}`,
        reporter_email: `bulk-${i}@Shop.example`,
      });
    }
    const titles = (text: string) =>
      [...text.matchAll(/<td class="ticket-cell">\s*<a href="[^"]+">([^<]+)<\/a>/g)].map(
        (m) => m[1],
      );

    const form = await client.get(inbox);
    expect(form.text).toContain('<label for="filter-assignee">Assignee</label>');
    expect(form.text).toContain('<label for="filter-q">Search</label>');
    expect(form.text).toMatch(/<form method="get" action="[^"]+\/feedback" class="inbox-filters"/);

    const mine = await client.get(`${inbox}?assignee=me`);
    expect(titles(mine.text)).toEqual(['Mine and closed', 'Mine and new']);
    // The status tabs keep the other filters and count within them.
    expect(mine.text).toContain(`href="${inbox}?status=closed&amp;assignee=me"`);
    expect(mine.text).toMatch(/aria-current="page"\s*>All <span class="count">2<\/span>/);
    expect(titles((await client.get(`${inbox}?assignee=me&status=closed`)).text)).toEqual([
      'Mine and closed',
    ]);
    expect(titles((await client.get(`${inbox}?assignee=${grace.id}`)).text)).toEqual([
      'Grace triaged',
    ]);
    const nobody = titles((await client.get(`${inbox}?assignee=none`)).text);
    expect(nobody).toHaveLength(25);
    expect(nobody).not.toContain('Mine and new');
    expect(titles((await client.get(`${inbox}?q=50%25_OFF`)).text)).toEqual(['Nobody new']);
    expect(titles((await client.get(`${inbox}?q=%25`)).text)).toEqual(['Nobody new']);

    const shop = await client.get(`${inbox}?q=shop.example`);
    expect(titles(shop.text)).toHaveLength(25);
    expect(shop.text).toContain(`href="${inbox}?q=shop.example&amp;page=2"`);
    expect(titles((await client.get(`${inbox}?q=shop.example&page=2`)).text)).toEqual(['Bulk 0']);

    const none = await client.get(`${inbox}?q=no+such+thing&assignee=none`);
    expect(none.status).toBe(200);
    expect(none.text).toContain('No tickets match these filters');
    expect(none.text).not.toContain('No feedback yet');
    // Junk filter values fall back to "anyone" instead of failing.
    for (const query of ['?assignee=<script>', '?status=open', `?q=${'x'.repeat(500)}`]) {
      const res = await client.get(`${inbox}${query}`);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<script>');
    }
  });

  it("names who takes part in a ticket's conversation room instead of counting seats", async () => {
    const { client, base, workspace, seat } = await seated('member');
    const ticket = await createFeedback(web.ctx.db, workspace, { reporter_label: 'Ada Lovelace' });
    const room = { id: ticket.room_id, workspace_id: workspace.id };
    await createMessage(web.ctx.db, room, { body: 'New feedback', author_kind: 'system' });
    await createMessage(web.ctx.db, room, {
      author_kind: 'member',
      author_member_id: seat.id,
      display_name: seat.user.name,
      body: 'Looking',
    });
    await createMessage(web.ctx.db, room, {
      author_kind: 'agent',
      author_ref: 'agt_x',
      display_name: 'shop',
      body: 'On it',
    });
    const page = await client.get(`${base}/rooms/${ticket.room_id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `Taking part: Ada Lovelace (reporter), ${seat.user.name}, shop (agent)`,
    );
    expect(page.text).not.toContain('0 members');
  });
});
