import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COPILOT_BOT, FakeGitHub, PREVIEW_DOCS, WEB_FLOW_DOCS } from '../src/fake-github/index.js';

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

async function call(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    redirect: 'manual',
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body, headers: res.headers };
}

/**
 * Fails the test that just ran when the fake answered outside GitHub's OpenAPI description during
 * it (a field the description lacks, a required one missing): the answer itself was a 500, and
 * this names the field, the operation and the status.
 */
function answersOnlyAsDescribed(fake: () => FakeGitHub): void {
  let checked = 0;
  afterEach(() => {
    const violations = fake().violations.slice(checked);
    checked = fake().violations.length;
    expect(violations).toEqual([]);
  });
}

/** A field of an answer's JSON body, by path (`data.repository.id`). */
function field(answer: unknown, path: string): unknown {
  let value: unknown =
    answer && typeof answer === 'object' && 'body' in answer ? answer.body : answer;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function appJwt(
  pem: string,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = { alg: 'RS256', typ: 'JWT' },
): string {
  const encode = (part: object): string => Buffer.from(JSON.stringify(part)).toString('base64url');
  const unsigned = `${encode(header)}.${encode(claims)}`;
  const signature = crypto.sign('sha256', Buffer.from(unsigned), pem).toString('base64url');
  return `${unsigned}.${signature}`;
}

function freshClaims(fake: FakeGitHub): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  // As @octokit/auth-app does: iat 30 s back, 10 minutes long, iss as a number.
  return { iat: now - 30, exp: now + 570, iss: Number(fake.appId) };
}

async function installationToken(fake: FakeGitHub, installationId: number): Promise<string> {
  const answer = await call(`${fake.apiUrl}/app/installations/${installationId}/access_tokens`, {
    method: 'POST',
    token: appJwt(fake.privateKeyPem, freshClaims(fake)),
  });
  expect(answer.status).toBe(201);
  return field(answer, 'token') as string;
}

/** The browser OAuth dance as Ferry drives it: authorize -> callback with code -> token. */
async function userTokens(
  fake: FakeGitHub,
  login: string,
): Promise<{ access: string; refresh: string }> {
  fake.actAs(login);
  const state = crypto.randomUUID();
  const authorize = await call(
    `${fake.webUrl}/login/oauth/authorize?client_id=${fake.clientId}&state=${state}`,
  );
  expect(authorize.status).toBe(302);
  const callback = new URL(authorize.headers.get('location') ?? '');
  expect(callback.origin + callback.pathname).toBe('http://ferry.test/github/callback');
  expect(callback.searchParams.get('state')).toBe(state);
  const exchange = await call(`${fake.webUrl}/login/oauth/access_token`, {
    body: {
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
      code: callback.searchParams.get('code'),
    },
  });
  expect(exchange.status).toBe(200);
  return {
    access: field(exchange, 'access_token') as string,
    refresh: field(exchange, 'refresh_token') as string,
  };
}

/** Some other App's key: its JWTs must not pass. */
const otherKey = crypto
  .generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

describe.each([
  ['github.com layout', undefined],
  ['GHES layout', '/ghe'],
])('FakeGitHub (%s)', (_layout, pathPrefix) => {
  let fake: FakeGitHub;
  let installationId: number;

  beforeAll(async () => {
    fake = await new FakeGitHub({ pathPrefix }).start();
    fake.addUser('alice');
    fake.addUser('bob');
    fake.setupUrl = 'http://ferry.test/github/setup';
    fake.callbackUrl = 'http://ferry.test/github/callback';
    const installation = fake.addInstallation({
      account: 'acme',
      users: ['alice', 'bob'],
      repos: [
        { name: 'shop' },
        ...Array.from({ length: 4 }, (_, i) => ({ name: `repo-${i}`, private: true })),
      ],
    });
    installationId = installation.id;
  });
  afterAll(async () => {
    await fake.close();
  });
  answersOnlyAsDescribed(() => fake);

  it('lays out its URLs like github.com or GHES', () => {
    const origin = fake.webUrl.replace(pathPrefix ?? '', '');
    if (pathPrefix) {
      expect(fake.webUrl).toBe(`${origin}/ghe`);
      expect(fake.apiUrl).toBe(`${origin}/ghe/api/v3`);
      expect(fake.graphqlUrl).toBe(`${origin}/ghe/api/graphql`);
    } else {
      expect(fake.apiUrl).toBe(fake.webUrl);
      expect(fake.graphqlUrl).toBe(`${fake.apiUrl}/graphql`);
    }
  });

  it('gives an installation token for a valid App JWT and refuses bad ones', async () => {
    const token = await installationToken(fake, installationId);
    expect(token).toMatch(/^ghs_/);

    const url = `${fake.apiUrl}/app/installations/${installationId}/access_tokens`;
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      appJwt(otherKey, freshClaims(fake)),
      appJwt(fake.privateKeyPem, { iat: now - 700, exp: now - 100, iss: fake.appId }),
      appJwt(fake.privateKeyPem, { iat: now, exp: now + 3600, iss: fake.appId }),
      appJwt(fake.privateKeyPem, { ...freshClaims(fake), iss: '1' }),
      appJwt(fake.privateKeyPem, freshClaims(fake), { alg: 'none' }),
      'not-a-jwt',
    ];
    for (const jwt of bad) {
      const answer = await call(url, { method: 'POST', token: jwt });
      expect(answer.status).toBe(401);
      expect(field(answer, 'message')).toBe('A JSON web token could not be decoded');
    }
    const unknown = await call(`${fake.apiUrl}/app/installations/999/access_tokens`, {
      method: 'POST',
      token: appJwt(fake.privateKeyPem, freshClaims(fake)),
    });
    expect(unknown.status).toBe(404);
  });

  it('paginates installation repositories with a link header', async () => {
    const token = await installationToken(fake, installationId);
    const first = await call(`${fake.apiUrl}/installation/repositories?per_page=2`, { token });
    expect(first.status).toBe(200);
    expect(field(first, 'total_count')).toBe(5);
    expect(field(first, 'repositories.0.full_name')).toBe('acme/shop');
    expect(field(first, 'repositories.0.owner.login')).toBe('acme');
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBe(`${fake.apiUrl}/installation/repositories?per_page=2&page=2`);
    const last = await call(`${fake.apiUrl}/installation/repositories?per_page=2&page=3`, {
      token,
    });
    expect(field(last, 'repositories.0.name')).toBe('repo-3');
    expect(last.headers.get('link')).toBeNull();
  });

  it('creates issues numbered per repo, only with an installation token', async () => {
    const token = await installationToken(fake, installationId);
    const url = `${fake.apiUrl}/repos/acme/shop/issues`;
    const one = await call(url, { token, body: { title: 'First', body: 'text' } });
    const two = await call(url, { token, body: { title: 'Second' } });
    expect(one.status).toBe(201);
    expect(field(one, 'number')).toBe(1);
    expect(field(two, 'number')).toBe(2);
    expect(field(one, 'html_url')).toBe(`${fake.webUrl}/acme/shop/issues/1`);
    expect((await call(url, { token, body: { body: 'no title' } })).status).toBe(422);
    const elsewhere = `${fake.apiUrl}/repos/someone/else/issues`;
    expect((await call(elsewhere, { token, body: { title: 'x' } })).status).toBe(404);
    expect(fake.issues('acme/shop').map((issue) => issue.title)).toEqual(['First', 'Second']);
    expect(fake.requestsTo('POST', '/repos/acme/shop/issues')).toHaveLength(3);
  });

  // Not in GitHub's REST description (the web host): as WEB_FLOW_DOCS describe it, pages and dates.
  it(`runs the OAuth web flow; refresh tokens are single use (${WEB_FLOW_DOCS.join('; ')})`, async () => {
    const { access, refresh } = await userTokens(fake, 'alice');
    const me = await call(`${fake.apiUrl}/user`, { token: access });
    expect(me.status).toBe(200);
    expect(field(me, 'login')).toBe('alice');
    const installations = await call(`${fake.apiUrl}/user/installations`, { token: access });
    expect(field(installations, 'installations.0.id')).toBe(installationId);
    expect(field(installations, 'installations.0.app_slug')).toBe(fake.slug);

    const refreshUrl = `${fake.webUrl}/login/oauth/access_token`;
    const form = new URLSearchParams({
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refresh,
    });
    const refreshOnce = (): Promise<Response> =>
      fetch(refreshUrl, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: form.toString(),
      });
    const renewed = (await (await refreshOnce()).json()) as Record<string, unknown>;
    expect(renewed).toEqual({
      access_token: expect.stringMatching(/^ghu_/) as string,
      expires_in: 28_800,
      refresh_token: expect.stringMatching(/^ghr_/) as string,
      refresh_token_expires_in: expect.any(Number) as number,
      scope: '',
      token_type: 'bearer',
    });
    // The access token issued beside the refresh token no longer works; the new one does.
    expect((await call(`${fake.apiUrl}/user`, { token: access })).status).toBe(401);
    const renewedToken = renewed.access_token as string;
    expect((await call(`${fake.apiUrl}/user`, { token: renewedToken })).status).toBe(200);
    const again = await refreshOnce();
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ error: 'bad_refresh_token' });

    const reused = await call(refreshUrl, {
      body: { client_id: fake.clientId, client_secret: fake.clientSecret, code: 'nope' },
    });
    expect(field(reused, 'error')).toBe('bad_verification_code');
    const wrongSecret = await call(refreshUrl, {
      body: { client_id: fake.clientId, client_secret: 'x', code: 'nope' },
    });
    expect(field(wrongSecret, 'error')).toBe('incorrect_client_credentials');
    const wrongClient = await call(`${fake.webUrl}/login/oauth/authorize?client_id=nope`);
    expect(wrongClient.status).toBe(404);
  });

  it('walks an agent task through the default script to a PR', async () => {
    const { access } = await userTokens(fake, 'alice');
    const tasksUrl = `${fake.apiUrl}/agents/repos/acme/shop/tasks`;
    const created = await call(tasksUrl, {
      token: access,
      body: { prompt: 'Fix it', base_ref: 'main', create_pull_request: true },
    });
    expect(created.status).toBe(201);
    expect(field(created, 'state')).toBe('queued');
    const taskUrl = `${tasksUrl}/${String(field(created, 'id'))}`;
    const seen: Answer[] = [];
    for (let i = 0; i < 4; i++) seen.push(await call(taskUrl, { token: access }));
    expect(seen.map((answer) => field(answer, 'state'))).toEqual([
      'in_progress',
      'in_progress',
      'completed',
      'completed',
    ]);
    expect(field(seen[0], 'artifacts')).toEqual([]);
    // GitHub's description: a pull artifact's data is the PR's id and GraphQL global id, no URL.
    const pr = field(seen[3], 'artifacts.0');
    expect(pr).toEqual({
      provider: 'github',
      type: 'pull',
      data: {
        id: expect.any(Number) as number,
        global_id: expect.stringMatching(/^PR_/) as string,
      },
    });
    expect(field(seen[1], 'artifacts.0.data.global_id')).toBe(field(pr, 'data.global_id'));
    expect(field(seen[3], 'sessions.0.prompt')).toBe('Fix it');
    expect(field(seen[3], 'sessions.0.base_ref')).toBe('main');
    expect(fake.tasks()[0]).toMatchObject({ repoFullName: 'acme/shop', login: 'alice' });

    // The PR behind the artifact, by its global id, over GraphQL.
    const node = await call(fake.graphqlUrl, {
      token: access,
      body: {
        query:
          'query ($pr: ID!) { node(id: $pr) { ... on PullRequest { url number state merged } } }',
        variables: { pr: field(pr, 'data.global_id') },
      },
    });
    expect(field(node, 'data.node')).toEqual({
      url: expect.stringMatching(new RegExp(`^${fake.webUrl}/acme/shop/pull/\\d+$`)) as string,
      number: expect.any(Number) as number,
      state: 'OPEN',
      merged: false,
    });

    // The list carries no prompt and no sessions: only what GitHub's description lists.
    const listed = await call(`${tasksUrl}?per_page=50&sort=created_at`, { token: access });
    expect(field(listed, 'tasks.0.id')).toBe(field(created, 'id'));
    expect(field(listed, 'tasks.0.prompt')).toBeUndefined();
    expect(field(listed, 'tasks.0.sessions')).toBeUndefined();
    expect(field(listed, 'tasks.0.name')).toBe('Fix it');

    const installation = await installationToken(fake, installationId);
    const byApp = await call(tasksUrl, { token: installation, body: { prompt: 'x' } });
    expect(byApp.status).toBe(403);
    expect((await call(tasksUrl, { token: access, body: {} })).status).toBe(422);
    expect((await call(`${tasksUrl}/nope`, { token: access })).status).toBe(404);

    fake.refuseAgentTasks('bob');
    const { access: bobs } = await userTokens(fake, 'bob');
    const refused = await call(tasksUrl, { token: bobs, body: { prompt: 'x' } });
    expect(refused.status).toBe(403);
    expect(field(refused, 'message')).toBe('Agent tasks are not available for this account');
  });

  // Public preview, not in GitHub's published GraphQL schema: as PREVIEW_DOCS (page and date).
  it(`assigns Copilot over GraphQL only with the feature header, then walks the timeline (${PREVIEW_DOCS})`, async () => {
    const { access } = await userTokens(fake, 'alice');
    const token = await installationToken(fake, installationId);
    const issue = await call(`${fake.apiUrl}/repos/acme/repo-0/issues`, {
      token,
      body: { title: 'Assign me' },
    });
    expect(issue.status).toBe(201);
    const gql = (query: string, variables: object, headers: Record<string, string> = {}) =>
      call(fake.graphqlUrl, { token: access, body: { query, variables }, headers });

    // Variables of any name: the document is parsed, validated against the schema, executed.
    const actorsQuery = `query Actors($o: String!, $n: String!) {
      repository(owner: $o, name: $n) {
        id
        suggestedActors(capabilities: [CAN_BE_ASSIGNED], first: 100) {
          nodes { login ... on Bot { id } ... on User { id } }
        }
      }
    }`;
    const actors = await gql(actorsQuery, { o: 'acme', n: 'repo-0' });
    expect(field(actors, 'data.repository.suggestedActors.nodes.0')).toEqual({
      login: COPILOT_BOT.login,
      id: COPILOT_BOT.id,
    });
    const missing = await gql(actorsQuery, { o: 'acme', n: 'nope' });
    expect(field(missing, 'errors.0.type')).toBe('NOT_FOUND');
    expect(field(missing, 'data.repository')).toBeNull();
    const literal = await gql(
      'query { repository(owner: "acme", name: "repo-0") { nameWithOwner } }',
      {},
    );
    expect(field(literal, 'data.repository.nameWithOwner')).toBe('acme/repo-0');

    const mutation = `mutation Assign($assignment: ReplaceActorsForAssignableInput!) {
      replaceActorsForAssignable(input: $assignment) {
        assignable { ... on Issue { id assignees(first: 10) { nodes { login } } } }
      }
    }`;
    const assignment = {
      assignableId: field(issue, 'node_id'),
      actorIds: [COPILOT_BOT.id],
      agentAssignment: {
        targetRepositoryId: field(actors, 'data.repository.id'),
        baseRef: 'main',
      },
    };
    // The docs ask for both features; one is not enough.
    for (const features of [undefined, 'issues_copilot_assignment_api_support']) {
      const refused = await gql(
        mutation,
        { assignment },
        features ? { 'GraphQL-Features': features } : {},
      );
      expect(refused.status).toBe(200);
      expect(field(refused, 'errors.0.message')).toMatch(/coding_agent_model_selection/);
    }
    expect(fake.issues('acme/repo-0')[0]?.assignees).toEqual([]);

    const features = {
      'GraphQL-Features': 'issues_copilot_assignment_api_support,coding_agent_model_selection',
    };
    const assigned = await gql(mutation, { assignment }, features);
    expect(
      field(assigned, 'data.replaceActorsForAssignable.assignable.assignees.nodes.0.login'),
    ).toBe(COPILOT_BOT.login);
    expect(fake.issues('acme/repo-0')[0]?.assignees).toEqual([COPILOT_BOT.login]);

    const timeline = `query ($who: String!, $what: String!, $n: Int!) {
      repository(owner: $who, name: $what) {
        issue(number: $n) {
          timelineItems(itemTypes: [CROSS_REFERENCED_EVENT], last: 20) {
            nodes { ... on CrossReferencedEvent { source { __typename ... on PullRequest { url state merged } } } }
          }
        }
      }
    }`;
    const vars = { who: 'acme', what: 'repo-0', n: field(issue, 'number') };
    const polls: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      polls.push(field(await gql(timeline, vars), 'data.repository.issue.timelineItems.nodes'));
    }
    expect(polls[0]).toEqual([]);
    expect(field(polls[1], '0.source')).toMatchObject({ state: 'OPEN', merged: false });
    expect(field(polls[2], '0.source')).toMatchObject({ state: 'MERGED', merged: true });
    expect(polls[3]).toEqual(polls[2]);

    // What GitHub's schema does not have, or a variable left out, is refused as GitHub would.
    expect(field(await gql('query { viewer { login } }', {}), 'errors.0.message')).toBe(
      'Cannot query field "viewer" on type "Query".',
    );
    expect(field(await gql(timeline, { who: 'acme' }), 'errors.0.message')).toMatch(
      /Variable "\$what" of required type "String!" was not provided/,
    );
  });

  it('fails and hangs on command, then answers normally', async () => {
    const { access } = await userTokens(fake, 'alice');
    fake.failNext({
      path: '/user',
      status: 502,
      headers: { 'Retry-After': '1' },
    });
    const failed = await call(`${fake.apiUrl}/user`, { token: access });
    expect(failed.status).toBe(502);
    expect(failed.headers.get('retry-after')).toBe('1');
    expect((await call(`${fake.apiUrl}/user`, { token: access })).status).toBe(200);

    fake.hangNext({ method: 'GET', path: /^\/user$/ });
    const before = fake.requests.length;
    const hung = fetch(`${fake.apiUrl}/user`, {
      headers: { authorization: `token ${access}` },
      signal: AbortSignal.timeout(200),
    });
    await expect(hung).rejects.toThrow();
    expect(fake.requests[before]?.path).toBe('/user');
    expect(fake.requests[before]?.headers.authorization).toBe(`token ${access}`);
    expect((await call(`${fake.apiUrl}/user`, { token: access })).status).toBe(200);
  });

  it(`installs the App for the acting user and redirects to the setup URL (${WEB_FLOW_DOCS[2]})`, async () => {
    fake.actAs('carol');
    const install = await call(`${fake.webUrl}/apps/${fake.slug}/installations/new?state=s1`);
    expect(install.status).toBe(302);
    const setup = new URL(install.headers.get('location') ?? '');
    expect(setup.origin + setup.pathname).toBe('http://ferry.test/github/setup');
    expect(setup.searchParams.get('state')).toBe('s1');
    expect(setup.searchParams.get('setup_action')).toBe('install');
    const id = setup.searchParams.get('installation_id');
    const again = await call(`${fake.webUrl}/apps/${fake.slug}/installations/new?state=s2`);
    expect(new URL(again.headers.get('location') ?? '').searchParams.get('installation_id')).toBe(
      id,
    );
    const { access } = await userTokens(fake, 'carol');
    const mine = await call(`${fake.apiUrl}/user/installations`, { token: access });
    expect(field(mine, 'installations.0.account.login')).toBe('carol');
    expect(field(mine, 'total_count')).toBe(1);
  });

  it('answers 404 to unknown endpoints and to requests outside its base', async () => {
    const origin = new URL(fake.webUrl).origin;
    expect(field(await call(`${fake.apiUrl}/nothing/here`), 'message')).toBe('Not Found');
    if (pathPrefix) {
      const ignoringPrefix = await call(
        `${origin}/app/installations/${installationId}/access_tokens`,
        {
          method: 'POST',
          token: appJwt(fake.privateKeyPem, freshClaims(fake)),
        },
      );
      expect(ignoringPrefix.status).toBe(404);
      expect((await call(`${origin}/graphql`, { body: { query: '' } })).status).toBe(404);
    }
  });
});

describe('FakeGitHub token lifetimes', () => {
  let fake: FakeGitHub;
  beforeAll(async () => {
    fake = await new FakeGitHub({ accessTokenTtlSeconds: 1 }).start();
    fake.callbackUrl = 'http://ferry.test/github/callback';
    fake.addUser('alice');
  });
  afterAll(async () => {
    await fake.close();
  });
  answersOnlyAsDescribed(() => fake);

  it('expires user access tokens after their lifetime, and revokes on command', async () => {
    const { access } = await userTokens(fake, 'alice');
    const fresh = await userTokens(fake, 'alice');
    expect((await call(`${fake.apiUrl}/user`, { token: access })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const expired = await call(`${fake.apiUrl}/user`, { token: access });
    expect(expired.status).toBe(401);
    expect(field(expired, 'message')).toBe('Bad credentials');

    const renewed = await call(`${fake.webUrl}/login/oauth/access_token`, {
      body: {
        client_id: fake.clientId,
        client_secret: fake.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: fresh.refresh,
      },
    });
    const token = field(renewed, 'access_token') as string;
    expect((await call(`${fake.apiUrl}/user`, { token })).status).toBe(200);
    fake.revokeUserTokens('alice');
    expect((await call(`${fake.apiUrl}/user`, { token })).status).toBe(401);
  });
});
