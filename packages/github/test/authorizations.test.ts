import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { createMember, createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import { FakeGitHub } from '@ferry/testing/fake-github';
import {
  createGitHubClient,
  findAuthorization,
  loadGithubSettings,
  ReauthorizeError,
  saveAuthorization,
  userTokenFor,
  type GitHubClient,
} from '../src/index.js';

/** Members' user tokens: sealed at rest, refreshed before they expire, a refresh token used once. */
describe('GitHub authorizations', () => {
  let ctx: TestContext;
  let fake: FakeGitHub;
  let client: GitHubClient;
  let box: SecretBox;

  beforeAll(async () => {
    fake = await new FakeGitHub().start();
    fake.addUser('ada-gh');
    ctx = await createTestContext();
    const settings = loadGithubSettings(fake.env());
    if (!settings.configured) throw new Error('fake env not applied');
    client = createGitHubClient(settings.app);
    box = new SecretBox(ctx.config.APP_SECRET);
  });
  afterAll(async () => {
    await fake.close();
    await ctx.close();
  });

  async function authorizedMember() {
    const workspace = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, workspace);
    fake.actAs('ada-gh');
    const redirect = 'http://ferry.test/github/callback';
    const answer = await fetch(client.authorizeUrl('s', redirect), { redirect: 'manual' });
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    const tokens = await client.exchangeCode(code, redirect);
    await saveAuthorization(ctx.db, box, {
      workspaceId: workspace.id,
      memberId: member.id,
      user: await client.getUser(tokens.token),
      tokens,
    });
    return { member, tokens };
  }

  const refreshGrants = () =>
    fake
      .requestsTo('POST', '/login/oauth/access_token')
      .filter((r) => JSON.stringify(r.body).includes('refresh_token')).length;

  it('stores both tokens sealed, never in the clear', async () => {
    const { member, tokens } = await authorizedMember();
    const row = (await findAuthorization(ctx.db, member.id))!;
    expect(row.github_login).toBe('ada-gh');
    expect(row.access_token_sealed).not.toContain(tokens.token);
    expect(row.refresh_token_sealed).not.toContain(tokens.refreshToken!);
    expect(box.decrypt(row.access_token_sealed)).toBe(tokens.token);
    expect(row.access_expires_at!.getTime()).toBeGreaterThan(Date.now() + 60 * 60_000);
  });

  it('uses the stored token while it is fresh', async () => {
    const { member, tokens } = await authorizedMember();
    const before = refreshGrants();
    expect(await userTokenFor(ctx.db, box, client, member.id)).toBe(tokens.token);
    expect(refreshGrants()).toBe(before);
  });

  it('refreshes a token about to expire once, however many callers ask at the same time', async () => {
    const { member, tokens } = await authorizedMember();
    await ctx.db
      .updateTable('github_authorizations')
      .set({ access_expires_at: new Date(Date.now() + 60_000) })
      .where('member_id', '=', member.id)
      .execute();
    const before = refreshGrants();
    const got = await Promise.all(
      Array.from({ length: 5 }, () => userTokenFor(ctx.db, box, client, member.id)),
    );
    expect(refreshGrants()).toBe(before + 1);
    expect(new Set(got).size).toBe(1);
    expect(got[0]).not.toBe(tokens.token);
    // The new pair is what is stored now; the spent refresh token is gone.
    const row = (await findAuthorization(ctx.db, member.id))!;
    expect(box.decrypt(row.access_token_sealed)).toBe(got[0]);
    expect(box.decrypt(row.refresh_token_sealed!)).not.toBe(tokens.refreshToken);
  });

  it('asks the member to authorize again when GitHub refuses the refresh token', async () => {
    const { member } = await authorizedMember();
    fake.failNext({
      method: 'POST',
      path: '/login/oauth/access_token',
      status: 200,
      body: {
        error: 'bad_refresh_token',
        error_description: 'The refresh token passed is incorrect or expired.',
      },
    });
    await expect(
      userTokenFor(ctx.db, box, client, member.id, { force: true }),
    ).rejects.toBeInstanceOf(ReauthorizeError);
  });
});
