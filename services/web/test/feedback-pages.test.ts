import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@ferry/db';
import { createFeedback, createMessage, createWorkspace } from '@ferry/testing';
import { FormClient, signedInSeat, startWeb, type WebHarness } from './harness.js';

describe('feedback inbox and ticket pages', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb({ PUBLIC_URL: 'http://ferry.example.test:8080' });
  });
  afterAll(async () => {
    await web.close();
  });

  async function seated(role: Role) {
    const seated = await signedInSeat(web, role);
    return { ...seated, inbox: `${seated.base}/feedback` };
  }

  it('explains how to file feedback when the inbox is empty', async () => {
    const admin = await seated('admin');
    const page = await admin.client.get(admin.inbox);
    expect(page.status).toBe(200);
    expect(page.text).toContain('No feedback yet');
    expect(page.text).toContain('curl -X POST http://ferry.example.test:8080/api/v1/feedback');
    expect(page.text).toContain('Authorization: Bearer fry_YOUR_TOKEN');
    expect(page.text).toContain(`${admin.base}/settings/tokens`);
    // A member cannot create tokens, so is pointed at an admin instead of a 403 page.
    const member = await seated('member');
    const memberPage = await member.client.get(member.inbox);
    expect(memberPage.text).toContain('Ask an admin');
    expect(memberPage.text).not.toContain('/settings/tokens"');
  });

  it('lists tickets newest first with filters and pages', async () => {
    const { client, inbox, workspace } = await seated('member');
    for (let i = 0; i < 27; i++) {
      const ticket = await createFeedback(web.ctx.db, workspace, {
        title: `Ticket ${i}`,
        note: i === 26 ? 'Newest note without a title, shown as the excerpt' : `Note ${i}`,
        status: i % 9 === 0 ? 'triaged' : 'new',
        page_path: `/path/${i}`,
        reporter_label: `Reporter ${i}`,
      });
      // The factory fills every field; the newest ticket has no title, as the API allows.
      if (i === 26)
        await web.ctx.db
          .updateTable('feedback')
          .set({ title: null })
          .where('id', '=', ticket.id)
          .execute();
    }
    const first = await client.get(inbox);
    expect(first.status).toBe(200);
    expect(first.text).toContain('Newest note without a title, shown as the excerpt');
    expect(first.text).toContain('/path/25');
    expect(first.text).toContain('Reporter 25 (customer)');
    expect(first.text.indexOf('Ticket 25')).toBeLessThan(first.text.indexOf('Ticket 24'));
    expect(first.text).not.toContain('Ticket 1<');
    expect(first.text).toContain(`href="${inbox}?page=2"`);
    const second = await client.get(`${inbox}?page=2`);
    expect(second.text).toContain('Ticket 1<');
    expect(second.text).toContain('Ticket 0<');
    expect(second.text).not.toContain('Ticket 2<');

    const triaged = await client.get(`${inbox}?status=triaged`);
    expect(triaged.text).toContain('Ticket 18<');
    expect(triaged.text).not.toContain('Ticket 17<');
    expect(triaged.text).toMatch(/aria-current="page"\s*>Triaged <span class="count">3<\/span>/);

    // Junk query values fall back to the defaults instead of failing.
    for (const query of ['?page=abc', '?page=-4', '?status=<script>', '?page=99999999999']) {
      const res = await client.get(`${inbox}${query}`);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<script>');
    }
    expect((await client.get(`${inbox}?page=50`)).text).toContain('No more tickets');
  });

  it('shows the full context of a ticket, escaped, with its conversation', async () => {
    const { client, inbox, base, workspace } = await seated('member');
    const ticket = await createFeedback(web.ctx.db, workspace, {
      title: 'Broken <b>checkout</b>',
      note: 'Line one\nLine two <script>alert(1)</script>',
      reporter_label: 'Ada',
      reporter_role: 'customer',
      reporter_email: 'ada@example.test',
      page_url: 'javascript:alert(1)',
      page_path: '/checkout',
      controller_action: 'checkout#show',
      viewport_width: 1280,
      viewport_height: 800,
      partials: ['layouts/_nav', 'checkout/_form', 'shared/_footer'],
      element_selector: 'button#pay',
      element_tag: 'button',
      element_text: 'Pay',
      element_outer_html: '<img src=x onerror="alert(1)"><button id="pay">Pay</button>',
    });
    const room = { id: ticket.room_id, workspace_id: workspace.id };
    await createMessage(web.ctx.db, room, { body: 'New feedback from Ada on /checkout' });
    await createMessage(web.ctx.db, room, {
      author_kind: 'agent',
      display_name: 'laptop-agent',
      body: 'Looking into it <img src=x onerror=alert(2)>',
    });
    await createMessage(web.ctx.db, room, {
      author_kind: 'agent',
      display_name: 'laptop-agent',
      kind: 'progress',
      body: 'Running the test suite',
    });

    const page = await client.get(`${inbox}/${ticket.id}`);
    expect(page.status).toBe(200);
    const text = page.text;
    expect(text).toContain('Broken &lt;b&gt;checkout&lt;/b&gt;');
    expect(text).toContain('Line two &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).toContain(
      '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;button id=&quot;pay&quot;&gt;Pay&lt;/button&gt;',
    );
    expect(text).toMatch(/<pre class="outer-html">&lt;img/);
    expect(text).not.toContain('<script>alert');
    expect(text).not.toContain('<img src=x');
    // A reported URL that is not http(s) is shown as text, never as a link.
    expect(text).not.toContain('href="javascript:');
    expect(text).toContain('mailto:ada@example.test');
    expect(text).toContain('checkout#show');
    expect(text).toContain('1280 × 800');
    expect(text.indexOf('layouts/_nav')).toBeLessThan(text.indexOf('checkout/_form'));
    expect(text.indexOf('checkout/_form')).toBeLessThan(text.indexOf('shared/_footer'));
    expect(text).toContain('New feedback from Ada on /checkout');
    expect(text).toContain('laptop-agent');
    // The conversation uses the room's message renderer (views/messages.ts): markdown with raw
    // HTML shown as the text typed, the agent badge, and the progress chip's kind class.
    expect(text).toContain(
      '<div class="body"><p>Looking into it &lt;img src=x onerror=alert(2)&gt;</p></div>',
    );
    expect(text).toMatch(/<li\s+class="message chip author-agent kind-progress"/);
    expect(text).toContain('<span class="badge agent"');
    expect(text).toContain(`href="${base}/rooms/${ticket.room_id}"`);
  });

  it("answers 404 for unknown, junk and other workspaces' tickets", async () => {
    const { client, inbox } = await seated('admin');
    const foreign = await createFeedback(web.ctx.db, await createWorkspace(web.ctx.db));
    for (const id of [foreign.id, 'fbk_00000000000000000000000000', 'junk', '%3Cscript%3E']) {
      const res = await client.get(`${inbox}/${id}`);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain(foreign.title!);
    }
  });

  it('keeps guests out of the inbox and tickets', async () => {
    const { client, inbox, workspace } = await seated('guest');
    const ticket = await createFeedback(web.ctx.db, workspace);
    expect((await client.get(inbox)).status).toBe(403);
    const page = await client.get(`${inbox}/${ticket.id}`);
    expect(page.status).toBe(403);
    expect(page.text).not.toContain(ticket.note);
    const anonymous = await new FormClient(web.url).get(inbox);
    expect(anonymous.status).toBe(302);
    expect(anonymous.location).toMatch(/^\/login\?next=/);
  });
});
