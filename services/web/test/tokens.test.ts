import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '@ferry/core';
import type { Role, TokenScope } from '@ferry/db';
import { createApiToken, createMember, createWorkspace } from '@ferry/testing';
import { createTokenSchema, grantsScope, touchToken } from '@ferry/workspace';
import { FormClient, signedInSeat, startWeb, type WebHarness } from './harness.js';

const RAW_TOKEN = /fry_[A-Za-z0-9_-]{43}/;

describe('API tokens', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  async function seated(role: Role) {
    const seated = await signedInSeat(web, role);
    return { ...seated, tokens: `${seated.base}/settings/tokens` };
  }

  function api(path: string, token?: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${web.url}/api/v1${path}`, {
      ...init,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  }

  /** Every string value under this test's Redis prefix (sessions, slots, queues), joined. */
  async function everythingInRedis(): Promise<{ text: string; keys: string[] }> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await web.ctx.redis.scan(
        cursor,
        'MATCH',
        `${web.ctx.config.REDIS_PREFIX}:*`,
        'COUNT',
        500,
      );
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    const values: string[] = [];
    for (const key of keys) {
      if ((await web.ctx.redis.type(key)) === 'string')
        values.push((await web.ctx.redis.get(key)) ?? '');
    }
    return { text: values.join('\n'), keys };
  }

  it('keeps a new raw value minutes, sealed and outside the session, and drops it once shown', async () => {
    const { client, tokens } = await seated('admin');
    const created = await client.post(
      tokens,
      { name: 'Never looked at', scopes: 'tenant:read' },
      { csrfFrom: `${tokens}/new` },
    );
    expect(created.status).toBe(303);
    const before = await everythingInRedis();
    expect(before.text).not.toMatch(RAW_TOKEN);
    const slots = before.keys.filter((key) => key.includes(':show-once:'));
    expect(slots).toHaveLength(1);
    const ttl = await web.ctx.redis.ttl(slots[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
    const sessions = before.keys.filter((key) => key.includes(':sess:'));
    expect(sessions.length).toBeGreaterThan(0);

    const shown = await client.get(created.location!);
    const raw = RAW_TOKEN.exec(shown.text)?.[0];
    expect(raw).toBeDefined();
    const after = await everythingInRedis();
    expect(after.keys.filter((key) => key.includes(':show-once:'))).toEqual([]);
    expect(after.text).not.toContain(raw!);
  });

  it('creates a token through the form and shows its raw value exactly once', async () => {
    const { client, tokens, workspace, seat } = await seated('admin');
    const empty = await client.get(tokens);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No API tokens yet');
    expect((await client.get(`${tokens}/new`)).status).toBe(200);

    const created = await client.post(
      tokens,
      { name: 'Production widget', scopes: 'tenant:write' },
      { csrfFrom: `${tokens}/new` },
    );
    expect(created.status).toBe(303);
    expect(created.location).toMatch(new RegExp(`^${tokens}/tok_[0-9a-z]{26}/created$`));

    // Without the creator's session the page is not even reachable.
    const anonymous = await fetch(web.url + created.location!, { redirect: 'manual' });
    expect(anonymous.status).toBe(302);
    expect(await anonymous.text()).not.toMatch(RAW_TOKEN);

    const first = await client.get(created.location!);
    expect(first.status).toBe(200);
    const raw = RAW_TOKEN.exec(first.text)?.[0];
    expect(raw).toBeDefined();
    expect(first.text).toContain('It will not be shown again');

    // Reloading the page, or any other page, never shows it again.
    const reload = await client.get(created.location!);
    expect(reload.status).toBe(200);
    expect(reload.text).not.toContain(raw!);
    expect(reload.text).toContain('cannot be shown again');
    const list = await client.get(tokens);
    expect(list.text).not.toContain(raw!);
    expect(list.text).toContain(`${raw!.slice(0, 12)}…`);
    expect(list.text).toContain('Production widget');
    expect(list.text).toContain('tenant:write');
    expect(list.text).toContain(seat.user.name);
    expect(list.text).toContain('never');

    // Only the hash and the prefix are stored; no column holds the raw value.
    const row = await web.ctx.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      name: 'Production widget',
      scopes: ['tenant:write'],
      token_hash: hashSecret(raw!),
      prefix: raw!.slice(0, 12),
      created_by: seat.id,
      revoked_at: null,
      last_used_at: null,
    });
    expect(JSON.stringify(row)).not.toContain(raw!);

    // The token works, and authenticating records its use.
    const call = await api('/feedback', raw);
    expect(call.status).toBe(200);
    const used = await web.ctx.db
      .selectFrom('api_tokens')
      .select('last_used_at')
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(used.last_used_at).toBeInstanceOf(Date);
    expect((await client.get(tokens)).text).not.toMatch(/<td><span class="muted">never/);
  });

  it('never shows a raw value to another session, and forgets it after one view', async () => {
    const { client, tokens, workspace } = await seated('owner');
    const created = await client.post(
      tokens,
      { name: 'Agent', scopes: 'platform:dispatch' },
      { csrfFrom: `${tokens}/new` },
    );
    const other = await createMember(web.ctx.db, workspace, { role: 'admin' });
    const otherClient = new FormClient(web.url);
    await otherClient.signIn(other.user.email, other.user.password);
    const peek = await otherClient.get(created.location!);
    expect(peek.status).toBe(200);
    expect(peek.text).not.toMatch(RAW_TOKEN);
    // The creator still sees it once (the slot lives in the creator's session only).
    expect((await client.get(created.location!)).text).toMatch(RAW_TOKEN);
    expect((await client.get(created.location!)).text).not.toMatch(RAW_TOKEN);
  });

  it('revokes a token: refused by the API at once, and still listed as revoked', async () => {
    const { client, tokens, workspace } = await seated('admin');
    const token = await createApiToken(web.ctx.db, workspace, {
      name: 'Old CI',
      scopes: ['tenant:write'],
    });
    expect((await api('/feedback', token.raw)).status).toBe(200);

    const noCsrf = await client.post(`${tokens}/${token.id}/revoke`, { _csrf: '' });
    expect(noCsrf.status).toBe(403);
    expect((await api('/feedback', token.raw)).status).toBe(200);

    const revoked = await client.post(`${tokens}/${token.id}/revoke`, {}, { csrfFrom: tokens });
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe(tokens);
    const refused = await api('/feedback', token.raw);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'invalid_token',
    );

    const list = await client.get(tokens);
    expect(list.text).toContain('is revoked');
    expect(list.text).toMatch(/Old CI<\/strong>\s*<span class="badge danger">revoked/);
    const again = await client.post(`${tokens}/${token.id}/revoke`, {}, { csrfFrom: tokens });
    expect(again.status).toBe(303);
    expect((await client.get(tokens)).text).toContain('was already revoked');
  });

  it('answers unknown and foreign token ids with 404 and leaves them alone', async () => {
    const { client, tokens } = await seated('admin');
    const foreign = await createApiToken(web.ctx.db, await createWorkspace(web.ctx.db));
    const res = await client.post(`${tokens}/${foreign.id}/revoke`, {}, { csrfFrom: tokens });
    expect(res.status).toBe(404);
    expect((await api('/feedback', foreign.raw)).status).toBe(200);
    expect((await client.post(`${tokens}/tok_nope/revoke`, {}, { csrfFrom: tokens })).status).toBe(
      404,
    );
    expect((await client.get(`${tokens}/${foreign.id}/created`)).status).toBe(404);
    expect((await client.get(`${tokens}/not-an-id/created`)).status).toBe(404);
  });

  it('re-renders the form with inline errors for bad input, never a 500', async () => {
    const { client, tokens, workspace } = await seated('admin');
    const post = (form: Record<string, string>) =>
      client.post(tokens, form, { csrfFrom: `${tokens}/new` });

    const noName = await post({ name: '  ', scopes: 'tenant:read' });
    expect(noName.status).toBe(303);
    const noNamePage = await client.follow(noName);
    expect(noNamePage.text).toContain('Give the token a name.');
    const longName = await post({ name: 'x'.repeat(81), scopes: 'tenant:read' });
    expect(longName.status).toBe(303);
    const longNamePage = await client.follow(longName);
    expect(longNamePage.text).toContain('At most 80 characters.');
    const noScope = await post({ name: 'Fine name' });
    expect(noScope.status).toBe(303);
    const noScopePage = await client.follow(noScope);
    expect(noScopePage.text).toContain('Pick at least one scope.');
    expect(noScopePage.text).toContain('value="Fine name"');
    const badScope = await post({ name: 'Fine name', scopes: 'root:everything' });
    expect(badScope.status).toBe(303);
    const badScopePage = await client.follow(badScope);
    expect(badScopePage.text).toContain('Pick scopes from the list.');
    const missingCsrf = await client.post(tokens, { name: 'x', scopes: 'tenant:read', _csrf: '' });
    expect(missingCsrf.status).toBe(403);

    const count = await web.ctx.db
      .selectFrom('api_tokens')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(count.n).toBe('0');
  });

  it('keeps the tokens page to admins and owners', async () => {
    for (const role of ['member', 'guest'] as const) {
      const { client, tokens, workspace } = await seated(role);
      const token = await createApiToken(web.ctx.db, workspace);
      expect((await client.get(tokens)).status).toBe(403);
      expect((await client.get(`${tokens}/new`)).status).toBe(403);
      // Both a page and a post need a CSRF token from a page this seat can open.
      const base = tokens.replace(/\/settings\/tokens$/, '');
      const create = await client.post(
        tokens,
        { name: 'sneaky', scopes: 'tenant:write' },
        { csrfFrom: base },
      );
      expect(create.status).toBe(403);
      const revoke = await client.post(`${tokens}/${token.id}/revoke`, {}, { csrfFrom: base });
      expect(revoke.status).toBe(403);
      expect((await api('/feedback', token.raw)).status).toBe(200);
    }
    const owner = await seated('owner');
    expect((await owner.client.get(owner.tokens)).status).toBe(200);
  });

  it('tells a missing or bad token (401) from a token without the scope (403)', async () => {
    const workspace = await createWorkspace(web.ctx.db);
    const missing = await api('/feedback');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="ferry"');
    expect(await missing.json()).toEqual({
      error: { code: 'invalid_token', message: expect.stringContaining('Authorization') as string },
    });

    for (const header of [
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer not-a-token',
      `Bearer fry_${'A'.repeat(43)}`,
      `Bearer ${(await createApiToken(web.ctx.db, workspace, { revoked: true })).raw}`,
      `Token ${(await createApiToken(web.ctx.db, workspace)).raw}`,
    ]) {
      const res = await api('/feedback', undefined, { headers: { authorization: header } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="ferry"/);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_token');
    }

    const dispatchOnly = await createApiToken(web.ctx.db, workspace, {
      scopes: ['platform:dispatch'],
    });
    const read = await api('/feedback', dispatchOnly.raw);
    expect(read.status).toBe(403);
    expect(read.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    const readBody = (await read.json()) as { error: { code: string; message: string } };
    expect(readBody.error.code).toBe('insufficient_scope');
    expect(readBody.error.message).toContain('tenant:read');

    const reader = await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:read'] });
    expect((await api('/feedback', reader.raw)).status).toBe(200);
    const write = await api('/feedback', reader.raw, {
      method: 'POST',
      body: JSON.stringify({ note: 'hello' }),
    });
    expect(write.status).toBe(403);
    const writeBody = (await write.json()) as { error: { code: string; message: string } };
    expect(writeBody.error).toEqual({
      code: 'insufficient_scope',
      message: expect.stringContaining('"tenant:write"') as string,
    });

    // tenant:write implies tenant:read; the scheme is case-insensitive.
    const writer = await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] });
    const lower = await api('/feedback', undefined, {
      headers: { authorization: `bearer ${writer.raw}` },
    });
    expect(lower.status).toBe(200);
  });

  it('records last use at most once a minute', async () => {
    const workspace = await createWorkspace(web.ctx.db);
    const token = await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:read'] });
    const lastUsed = async () =>
      (
        await web.ctx.db
          .selectFrom('api_tokens')
          .select('last_used_at')
          .where('id', '=', token.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    expect(await lastUsed()).toBeNull();
    await api('/feedback', token.raw);
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await api('/feedback', token.raw);
    expect((await lastUsed())?.getTime()).toBe(first!.getTime());

    // A minute later the next use writes again; within the minute it does not.
    const later = new Date(first!.getTime() + 61_000);
    expect(await touchToken(web.ctx.db, { id: token.id, last_used_at: first }, later)).toBe(true);
    expect((await lastUsed())?.getTime()).toBe(later.getTime());
    const soon = new Date(later.getTime() + 30_000);
    expect(await touchToken(web.ctx.db, { id: token.id, last_used_at: later }, soon)).toBe(false);
    // A stale copy of the row cannot write either: the WHERE clause checks the stored value.
    expect(await touchToken(web.ctx.db, { id: token.id, last_used_at: null }, soon)).toBe(false);
  });

  it('parses scope lists from forms and knows what implies what', () => {
    const many = createTokenSchema.parse({
      name: ' Agent ',
      scopes: ['platform:dispatch', 'tenant:read', 'tenant:read'],
    });
    expect(many).toEqual({ name: 'Agent', scopes: ['platform:dispatch', 'tenant:read'] });
    expect(createTokenSchema.parse({ name: 'x', scopes: 'tenant:write' }).scopes).toEqual([
      'tenant:write',
    ]);
    expect(createTokenSchema.safeParse({ name: 'x', scopes: [5] }).success).toBe(false);
    const held: TokenScope[] = ['tenant:write'];
    expect(grantsScope(held, 'tenant:read')).toBe(true);
    expect(grantsScope(held, 'platform:dispatch')).toBe(false);
    expect(grantsScope(['tenant:read'], 'tenant:write')).toBe(false);
  });
});
