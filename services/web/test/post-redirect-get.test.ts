import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiToken,
  createFeedback,
  createMember,
  createRoom,
  createUser,
} from '@ferry/testing';
import { registerAgent } from '@ferry/workspace';
import { FormClient, signedInSeat, startWeb, type WebHarness } from './harness.js';

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
    const agentToken = await createApiToken(web.ctx.db, workspace, {
      scopes: ['platform:dispatch'],
    });
    const agent = (installId: string, name: string) =>
      registerAgent(web.ctx.db, {
        workspaceId: workspace.id,
        installId,
        name,
        tokenId: agentToken.id,
      });
    await agent('install-prg-1', 'taken');
    const agentPage = `${base}/agents/${(await agent('install-prg-2', 'renamed')).id}`;
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
        post: agentPage,
        form: { name: 'TAKEN', receives_feedback: 'on' },
        page: agentPage,
        says: '@taken is taken',
        field: 'aria-describedby="f-name-error"',
        kept: 'value="TAKEN"',
      },
      {
        post: `${agentPage}/wake`,
        form: { wake_url: 'https://93.184.216.34/kept-wake', wake_token: 'w'.repeat(201) },
        page: agentPage,
        says: 'id="f-wake_token-error"',
        field: 'aria-describedby="f-wake_token-error"',
        kept: 'value="https://93.184.216.34/kept-wake"',
      },
      {
        post: `${base}/agents/settings/ship-policy`,
        form: { max_files: '-1', max_lines: 'kept-lines', always_reviewed: 'db/**' },
        page: `${base}/agents/settings/ship-policy`,
        says: 'aria-describedby="f-max_lines-error"',
        kept: 'value="kept-lines"',
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

  it('a refused agent rename keeps "receives new feedback" as posted', async () => {
    const { client, base, workspace } = await signedInSeat(web, 'admin');
    const token = await createApiToken(web.ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const register = (installId: string, name: string) =>
      registerAgent(web.ctx.db, { workspaceId: workspace.id, installId, name, tokenId: token.id });
    await register('install-prg-a', 'first');
    const second = await register('install-prg-b', 'second');
    const page = `${base}/agents/${second.id}`;
    const checkbox = /name="receives_feedback"\s+value="on"\s+checked/;
    expect((await client.get(page)).text).not.toMatch(checkbox);
    const refused = await client.post(
      page,
      { name: '', receives_feedback: 'on' },
      { csrfFrom: page },
    );
    expect({ status: refused.status, location: refused.location }).toEqual({
      status: 303,
      location: page,
    });
    const shown = await client.get(page);
    expect(shown.text).toContain('aria-describedby="f-name-error"');
    expect(shown.text).toMatch(checkbox);
  });

  it('the wake token, a secret, is never kept: not on the page, not in the session', async () => {
    const { client, base, workspace } = await signedInSeat(web, 'admin');
    const token = await createApiToken(web.ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const agent = await registerAgent(web.ctx.db, {
      workspaceId: workspace.id,
      installId: 'install-prg-secret',
      name: 'secretive',
      tokenId: token.id,
    });
    const page = `${base}/agents/${agent.id}`;
    const secret = `wake-secret-${'s'.repeat(200)}`;
    const refused = await client.post(
      `${page}/wake`,
      { wake_url: 'https://93.184.216.34/w', wake_token: secret },
      { csrfFrom: page },
    );
    expect(refused.status).toBe(303);
    expect(await sessionsHolding(secret)).toEqual([]);
    const shown = await client.get(page);
    expect(shown.text).toContain('id="f-wake_token-error"');
    expect(shown.text).not.toContain('wake-secret-');
  });

  /** Session keys in Redis whose stored session contains `text` (a secret must be in none). */
  async function sessionsHolding(text: string): Promise<string[]> {
    const keys = await web.ctx.redis.keys(`${web.ctx.config.REDIS_PREFIX}:sess:*`);
    const holding: string[] = [];
    for (const key of keys) {
      if ((await web.ctx.redis.get(key))?.includes(text)) holding.push(key);
    }
    return holding;
  }

  it('sign-in and sign-up: 303 back to the form with its next, the error shown once, never the password', async () => {
    const user = await createUser(web.ctx.db);
    const next = '/invite/inv_kept?x=1';
    const withNext = (path: string) => `${path}?next=${encodeURIComponent(next)}`;
    const password = 'Wrong-Password-Kept-Nowhere-1';
    const cases: { post: string; form: Record<string, string>; page: string; says: string[] }[] = [
      {
        post: '/login',
        form: { email: user.email, password, next },
        page: withNext('/login'),
        // The anti-enumeration wording: the same whether or not the email has an account.
        says: ['That email and password do not match an account.', `value="${user.email}"`],
      },
      {
        post: '/login',
        form: { email: 'kept-login@example.test', password: '' },
        page: '/login',
        says: ['aria-describedby="f-password-error"', 'value="kept-login@example.test"'],
      },
      {
        post: '/signup',
        form: { name: 'Kept Name', email: 'kept-signup@example.test', password: 'short', next },
        page: withNext('/signup'),
        says: [
          'aria-describedby="f-password-error"',
          'value="Kept Name"',
          'value="kept-signup@example.test"',
          'name="next" value="/invite/inv_kept?x=1"',
        ],
      },
      {
        post: '/signup',
        form: { name: 'Taken Email', email: user.email, password },
        page: '/signup',
        says: ['aria-describedby="f-email-error"', 'value="Taken Email"'],
      },
    ];
    for (const c of cases) {
      const client = new FormClient(web.url);
      const posted = await client.post(c.post, c.form, { csrfFrom: c.post });
      expect({ post: c.post, status: posted.status, location: posted.location }).toEqual({
        post: c.post,
        status: 303,
        location: c.page,
      });
      expect({ post: c.post, sessions: await sessionsHolding(password) }).toEqual({
        post: c.post,
        sessions: [],
      });
      const shown = await client.get(c.page);
      expect({ post: c.post, status: shown.status }).toEqual({ post: c.post, status: 200 });
      for (const part of c.says) {
        expect({ post: c.post, shows: part, found: shown.text.includes(part) }).toEqual({
          post: c.post,
          shows: part,
          found: true,
        });
      }
      expect(shown.text).not.toContain(password);
      const again = await client.get(c.page);
      expect({ post: c.post, again: again.text.includes(c.says[0]!) }).toEqual({
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
