import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFeedback, createMember, createRoom } from '@ferry/testing';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * #42 defect 8: a refused form post answers 303 to the page that shows the form (never a page at
 * the POST address, which a reload re-posts or 404s), and that page shows the error once, beside
 * the field it is about, with the values as posted.
 */
describe('a refused form post redirects to its page (Post/Redirect/Get)', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  it('every form: 303 to the list, the error shown there once, linked to its field, values kept', async () => {
    const { client, base, workspace, seat } = await signedInSeat(web, 'owner');
    const room = await createRoom(web.ctx.db, workspace, { name: 'general', members: [seat] });
    const roomPath = `${base}/rooms/${room.id}`;
    const hooksTab = `${roomPath}/settings/webhooks`;
    const ticket = `${base}/feedback/${(await createFeedback(web.ctx.db, workspace)).id}`;
    const cases: {
      post: string;
      form: Record<string, string>;
      page: string;
      says: string;
      field?: string;
      kept?: string;
    }[] = [
      {
        post: `${hooksTab}/incoming`,
        form: { name: '' },
        page: hooksTab,
        says: 'class="error" id="f-name-error"',
        field: 'aria-describedby="f-name-error"',
      },
      {
        post: `${hooksTab}/outgoing`,
        form: { target_url: 'ftp://kept.example/x' },
        page: hooksTab,
        says: 'class="error"',
        kept: 'value="ftp://kept.example/x"',
      },
      {
        post: `${base}/members`,
        form: { email: 'nobody-kept@example.test', role: 'member' },
        page: `${base}/members`,
        says: 'No account uses this email yet.',
        field: 'aria-describedby="f-email-error"',
        kept: 'value="nobody-kept@example.test"',
      },
      {
        post: `${base}/members/${seat.id}/role`,
        form: { role: 'admin' },
        page: `${base}/members`,
        says: 'needs an owner',
      },
      {
        post: `${base}/members/invites`,
        form: { role: 'emperor', expires_in_days: '7' },
        page: `${base}/members`,
        says: 'Pick a role and when the link expires.',
      },
      {
        post: `${base}/rooms`,
        form: { name: '!!!' },
        page: `${base}/rooms`,
        says: 'id="f-name-error"',
        field: 'aria-describedby="f-name-error"',
        kept: 'value="!!!"',
      },
      {
        post: `${base}/settings/tokens`,
        form: { name: 'kept-token-name' },
        page: `${base}/settings/tokens/new`,
        says: 'class="error"',
        kept: 'value="kept-token-name"',
      },
      {
        post: `${roomPath}/messages`,
        form: { body: '   ' },
        page: roomPath,
        says: 'aria-invalid="true"',
      },
      {
        post: `${base}/settings/errors/scrubbing`,
        form: { extra_keys: 'k'.repeat(61), safe_fields: '' },
        page: `${base}/settings/errors`,
        says: 'aria-describedby="f-extra_keys-error"',
        kept: 'k'.repeat(61),
      },
      {
        post: `${base}/settings/error-alerts`,
        form: {
          new_group: 'on',
          room_id: room.id,
          url: 'http://127.0.0.1:9/kept',
          environments: '',
        },
        page: `${base}/settings/error-alerts`,
        says: 'aria-describedby="f-url-error"',
        kept: 'value="http://127.0.0.1:9/kept"',
      },
      {
        post: `${ticket}/triage`,
        form: { status: 'closed', assignee_id: 'mem_nope' },
        page: ticket,
        says: 'aria-describedby="triage-assignee_id-error"',
      },
      {
        post: '/workspaces',
        form: { name: '' },
        page: '/workspaces/new',
        says: 'id="f-name-error"',
        field: 'aria-describedby="f-name-error"',
      },
    ];
    for (const c of cases) {
      const posted = await client.post(c.post, c.form, { csrfFrom: `${base}/members` });
      expect({ post: c.post, status: posted.status, location: posted.location }).toEqual({
        post: c.post,
        status: 303,
        location: c.page,
      });
      const shown = await client.get(c.page);
      expect({ post: c.post, status: shown.status }).toEqual({ post: c.post, status: 200 });
      for (const part of [c.says, c.field, c.kept].filter((p) => p !== undefined)) {
        expect({ post: c.post, shows: part, found: shown.text.includes(part) }).toEqual({
          post: c.post,
          shows: part,
          found: true,
        });
      }
      // Once: a reload of the list is the plain list.
      const again = await client.get(c.page);
      expect({ post: c.post, again: again.text.includes(c.says) }).toEqual({
        post: c.post,
        again: false,
      });
    }
  });

  it('a refused removal says why on the members list, at its address', async () => {
    const { client, base, workspace, seat } = await signedInSeat(web, 'admin');
    const owner = await createMember(web.ctx.db, workspace, { role: 'owner' });
    void seat;
    const refused = await client.post(
      `${base}/members/${owner.id}/remove`,
      {},
      { csrfFrom: `${base}/members` },
    );
    expect({ status: refused.status, location: refused.location }).toEqual({
      status: 303,
      location: `${base}/members`,
    });
    const shown = await client.get(`${base}/members`);
    expect(shown.text).toContain('class="flash error"');
  });
});
