import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFeedback,
  createTestContext,
  createWorkspace,
  type TestContext,
} from '@ferry/testing';
import { ticketContext } from '@ferry/workspace';
import { dispatchMarker, issueBody, issueTitle } from '../src/issue-body.js';

const TICKET_URL = 'https://ferry.example.test/w/wsp_1/acme/feedback/fbk_1';

/** SPEC.md's issue body, field by field, from a ticket as the API and the widget file it. */
describe('dispatch issue body', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx.close());

  it('holds every field of the ticket context, in order, and no screenshot', async () => {
    const workspace = await createWorkspace(ctx.db);
    const partials = Array.from({ length: 55 }, (_, i) => `app/views/part_${i + 1}.html.erb`);
    const outer = `<div id="pay">${'x'.repeat(600)}</div>`;
    const feedback = await createFeedback(ctx.db, workspace, {
      title: 'Pay button dead',
      note: 'Clicking **Pay** does nothing.\nSecond line.',
      reporter_label: 'Ada Lovelace',
      reporter_role: 'Billing admin',
      reporter_email: 'ada@example.test',
      page_url: 'https://shop.example/checkout?step=2',
      page_path: '/checkout',
      controller_action: 'checkouts#show',
      viewport_width: 390,
      viewport_height: 844,
      partials,
      element_selector: 'main > form:nth-of-type(1) button',
      element_tag: 'button',
      element_text: 'Pay now',
      element_outer_html: outer,
    });
    await ctx.db
      .updateTable('rooms')
      .set({ name: 'Checkout: Pay button dead' })
      .where('id', '=', feedback.room_id)
      .execute();
    const context = await ticketContext(ctx.db, feedback);
    const body = issueBody(context, 'dsp_01m8000000000000000000000a', TICKET_URL);

    expect(issueTitle(context)).toBe('Feedback: Pay button dead');
    expect(body).toContain('conversation **Checkout: Pay button dead**');
    expect(body).toContain('> Clicking **Pay** does nothing.\n> Second line.');
    expect(body).toContain('- Label: Ada Lovelace');
    expect(body).toContain('- Role: Billing admin');
    expect(body).toContain('- Email: ada@example.test');
    expect(body).toContain('- URL: ` https://shop.example/checkout?step=2 `');
    expect(body).toContain('- Path: ` /checkout `');
    expect(body).toContain('- Controller#action: ` checkouts#show `');
    expect(body).toContain('- Viewport: 390 × 844');
    // The first 40 partials, numbered in page order; none after.
    expect(body).toContain('### Rendered partials (40, in page order)');
    expect(body).toContain('1. ` app/views/part_1.html.erb `');
    expect(body).toContain('40. ` app/views/part_40.html.erb `');
    expect(body).not.toContain('part_41.html.erb');
    expect(body.indexOf('part_2.html')).toBeLessThan(body.indexOf('part_3.html'));
    expect(body).toContain('- Selector: ` main > form:nth-of-type(1) button `');
    expect(body).toContain('- Tag: ` button `');
    expect(body).toContain('- Text: ` Pay now `');
    // Exactly the first 400 characters of the outer HTML.
    expect(body).toContain(`\`\`\`html\n${outer.slice(0, 400)}\n\`\`\``);
    expect(body).not.toContain(outer.slice(0, 401));
    expect(body).not.toMatch(/screenshot|data:image|\.png/i);
    expect(body.endsWith(dispatchMarker('dsp_01m8000000000000000000000a'))).toBe(true);
  });

  it('keeps reporter text inside its code spans and fences', async () => {
    const workspace = await createWorkspace(ctx.db);
    const feedback = await createFeedback(ctx.db, workspace, {
      element_outer_html: '<pre>```\nrm -rf /\n```</pre>',
      page_path: '/a`b',
    });
    const body = issueBody(
      await ticketContext(ctx.db, feedback),
      'dsp_01m8000000000000000000000b',
      TICKET_URL,
    );
    expect(body).toContain('````html\n<pre>```\nrm -rf /\n```</pre>\n````');
    expect(body).toContain('- Path: `` /a`b ``');
  });

  it('writes a dash for what the reporter did not give', async () => {
    const workspace = await createWorkspace(ctx.db);
    const filed = await createFeedback(ctx.db, workspace);
    // The factory fills every field; clear what a bare API ticket leaves out.
    const feedback = await ctx.db
      .updateTable('feedback')
      .set({
        reporter_label: null,
        reporter_role: null,
        reporter_email: null,
        viewport_width: null,
        viewport_height: null,
        partials: JSON.stringify([]),
        element_selector: null,
        element_outer_html: null,
      })
      .where('id', '=', filed.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const body = issueBody(
      await ticketContext(ctx.db, feedback),
      'dsp_01m8000000000000000000000c',
      TICKET_URL,
    );
    expect(body).toContain('- Label: —');
    expect(body).toContain('- Viewport: —');
    expect(body).toContain('### Rendered partials (0, in page order)\n\n—');
    expect(body).not.toContain('Outer HTML');
  });

  it('is SPEC’s body exactly, with one line added last before the marker: the ticket’s page', async () => {
    const workspace = await createWorkspace(ctx.db);
    const feedback = await createFeedback(ctx.db, workspace, {
      title: null,
      note: 'Total is wrong',
      partials: ['carts/_total'],
      element_outer_html: '<b>9</b>',
    });
    const body = issueBody(
      await ticketContext(ctx.db, feedback),
      'dsp_01m8000000000000000000000d',
      TICKET_URL,
    );
    expect(body).toBe(
      [
        'Feedback filed in Ferry, conversation **Feedback conversation**.',
        '',
        '### Note',
        '',
        '> Total is wrong',
        '',
        '### Reporter',
        '',
        '- Label: Ada',
        '- Role: customer',
        '- Email: ada@example.test',
        '',
        '### Page',
        '',
        '- URL: ` https://app.example.test/checkout `',
        '- Path: ` /checkout `',
        '- Controller#action: ` checkout#show `',
        '- Viewport: 1280 × 800',
        '',
        '### Rendered partials (1, in page order)',
        '',
        '1. ` carts/_total `',
        '',
        '### Picked element',
        '',
        '- Selector: ` button#pay `',
        '- Tag: ` button `',
        '- Text: ` Pay `',
        '',
        'Outer HTML (first 400 characters):',
        '',
        '```html',
        '<b>9</b>',
        '```',
        '',
        // The one line SPEC.md's body does not have.
        `Ticket in Ferry: ${TICKET_URL}`,
        dispatchMarker('dsp_01m8000000000000000000000d'),
      ].join('\n'),
    );
  });
});
