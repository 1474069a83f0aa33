import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createWorkspace } from '@ferry/testing';
import { FormClient, startWeb, type WebHarness } from './harness.js';

describe('sign up, sign in, workspaces', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  it('signs up, creates a workspace and lands on its dashboard', async () => {
    const client = new FormClient(web.url);
    const signup = await client.post(
      '/signup',
      { name: 'Ada', email: 'ada@example.test', password: 'long enough pw' },
      { csrfFrom: '/signup' },
    );
    expect(signup.status).toBe(302);
    expect(signup.location).toBe('/workspaces/new');
    const created = await client.post(
      '/workspaces',
      { name: 'Acme Support' },
      { csrfFrom: '/workspaces/new' },
    );
    expect(created.status).toBe(302);
    expect(created.location).toMatch(/^\/w\/wsp_[0-9a-z]{26}\/acme-support$/);
    const dashboard = await client.get(created.location!);
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain('Acme Support');
  });

  it('slows password guessing: 429 with Retry-After per account, before any password check', async () => {
    const workspace = await createWorkspace(web.ctx.db);
    const victim = await createMember(web.ctx.db, workspace);
    const attacker = new FormClient(web.url);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await attacker.post('/login', {
        email: victim.user.email.toUpperCase(),
        password: `guess ${i}`,
      });
      statuses.push(res.status);
    }
    // Each wrong password goes back to the form (303, Post/Redirect/Get).
    expect(statuses).toEqual(Array(10).fill(303));
    // The 11th attempt is refused, even with the right password.
    const limited = await attacker.post('/login', {
      email: victim.user.email,
      password: victim.user.password,
    });
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Too many attempts. Wait');
    const direct = await fetch(`${web.url}/login`, { method: 'POST' });
    expect(direct.status).toBeLessThan(500);
    // Another account from the same address is not locked out.
    const other = await createMember(web.ctx.db, workspace);
    const client = new FormClient(web.url);
    await client.signIn(other.user.email, other.user.password);
  });

  it('answers bad sign-up input with inline errors on the form (303), never a 500', async () => {
    const client = new FormClient(web.url);
    /** Posts the sign-up form, expects the way back to it (303), and returns the page shown there. */
    const refused = async (form: Record<string, string>) => {
      const posted = await client.post('/signup', form, { csrfFrom: '/signup' });
      expect({ status: posted.status, location: posted.location }).toEqual({
        status: 303,
        location: '/signup',
      });
      return (await client.get('/signup')).text;
    };
    const bad = await refused({ name: '', email: 'not-an-email', password: 'short' });
    expect(bad).toContain('Enter your name.');
    expect(bad).toContain('Enter a valid email address.');
    expect(bad).toContain('Use at least 8 characters.');
    const long = await refused({
      name: 'x'.repeat(500),
      email: 'a@b.test',
      password: 'y'.repeat(300),
    });
    expect(long).toContain('At most 120 characters.');
    const duplicate = await refused({
      name: 'Ada',
      email: 'ADA@example.test',
      password: 'long enough pw',
    });
    expect(duplicate).toContain('already exists');
  });

  it('rejects a form without a valid CSRF token', async () => {
    const client = new FormClient(web.url);
    const res = await client.post('/login', { email: 'a@b.test', password: 'x', _csrf: 'forged' });
    expect(res.status).toBe(403);
    const json = await fetch(`${web.url}/login`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: '{"email":"a"}',
    });
    expect(json.status).toBe(403);
    expect(await json.json()).toEqual({
      error: { code: 'csrf_failed', message: expect.any(String) as string },
    });
  });

  it('refuses wrong passwords without saying which part was wrong', async () => {
    const client = new FormClient(web.url);
    const res = await client.post('/login', {
      email: 'ada@example.test',
      password: 'wrong password',
    });
    expect({ status: res.status, location: res.location }).toEqual({
      status: 303,
      location: '/login',
    });
    expect((await client.get('/login')).text).toContain('do not match an account');
  });

  it('hides other workspaces: foreign and unknown ids are both 404', async () => {
    const workspace = await createWorkspace(web.ctx.db);
    const stranger = await createMember(web.ctx.db, await createWorkspace(web.ctx.db));
    const client = new FormClient(web.url);
    await client.signIn(stranger.user.email, stranger.user.password);
    expect((await client.get(`/w/${workspace.id}/${workspace.slug}`)).status).toBe(404);
    expect((await client.get('/w/wsp_00000000000000000000000000/x')).status).toBe(404);
    expect((await client.get('/w/../../etc/passwd')).status).toBe(404);
  });

  it('signs out and then asks to sign in again', async () => {
    const member = await createMember(web.ctx.db, await createWorkspace(web.ctx.db));
    const client = new FormClient(web.url);
    await client.signIn(member.user.email, member.user.password);
    const out = await client.post('/logout', {}, { csrfFrom: '/workspaces' });
    expect(out.status).toBe(302);
    const after = await client.get('/workspaces');
    expect(after.status).toBe(302);
    expect(after.location).toMatch(/^\/login/);
  });

  it('keeps a session that is used: each page renews its stored lifetime to 14 days', async () => {
    const member = await createMember(web.ctx.db, await createWorkspace(web.ctx.db));
    const client = new FormClient(web.url);
    await client.signIn(member.user.email, member.user.password);
    // Rolling sessions: the cookie comes back with every page, with a new expiry.
    const first = await client.raw('/workspaces');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^ferry\.sid=s%3A[^;]+; Path=\/; Expires=/);
    const sid = decodeURIComponent(cookie.split(';')[0]!.split('=')[1]!).slice(2).split('.')[0];
    const key = `${web.ctx.config.REDIS_PREFIX}:sess:${sid}`;
    // As if the last visit were almost two weeks ago.
    expect(await web.ctx.redis.expire(key, 60)).toBe(1);
    expect((await client.get('/workspaces')).status).toBe(200);
    expect(await web.ctx.redis.ttl(key)).toBeGreaterThan(14 * 24 * 3600 - 60);
  });
});
