import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub, PREVIEW_DOCS } from '@ferry/testing/fake-github';
import { createGitHubClient, loadGithubSettings, type GitHubClient } from '../src/index.js';

/**
 * The client against a fake GitHub that answers only in the shapes of GitHub's OpenAPI
 * description, and refuses any request the description would not take: every call below is
 * checked both ways (`assertConformance` at the end).
 */
describe('GitHub client against GitHub-shaped answers', () => {
  let fake: FakeGitHub;
  let client: GitHubClient;
  let token: string;

  beforeAll(async () => {
    fake = await new FakeGitHub().start();
    fake.addUser('ada-gh');
    fake.addInstallation({ account: 'acme', repos: [{ name: 'shop' }], users: ['ada-gh'] });
    fake.addInstallation({
      account: 'acme-corp',
      enterprise: true,
      repos: [{ name: 'infra' }],
      users: ['ada-gh'],
    });
    fake.callbackUrl = 'http://ferry.test/github/callback';
    const settings = loadGithubSettings(fake.env());
    if (!settings.configured) throw new Error('fake env not applied');
    client = createGitHubClient(settings.app);
    fake.actAs('ada-gh');
    const answer = await fetch(client.authorizeUrl('s', fake.callbackUrl), { redirect: 'manual' });
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    token = (await client.exchangeCode(code, fake.callbackUrl)).token;
  });
  afterAll(async () => {
    await fake.close();
    fake.assertConformance();
  });

  it('lists an installation on an enterprise (its account has no login) beside the others', async () => {
    const installations = await client.userInstallations(token);
    expect(installations.map((i) => i.account)).toEqual(['acme', 'acme-corp']);
    const [answer] = fake.requestsTo('GET', '/user/installations').slice(-1);
    expect(answer).toBeDefined();
  });

  it("finds a task's pull request from the artifact's global id, over GraphQL", async () => {
    fake.scriptTasks(['in_progress', { state: 'in_progress', pr: true }]);
    const started = await client.startAgentTask(token, 'acme/shop', {
      prompt: 'Fix the login button',
      baseRef: 'main',
    });
    expect(started.pullRequestId).toBeNull();
    const task = await client.getAgentTask(token, 'acme/shop', started.id);
    expect(task.pullRequestId).toMatch(/^PR_/);
    const pull = await client.pullRequest(token, task.pullRequestId!);
    expect(pull).toEqual({
      url: expect.stringMatching(new RegExp(`^${fake.webUrl}/acme/shop/pull/\\d+$`)) as string,
      number: expect.any(Number) as number,
      merged: false,
      closed: false,
    });
    expect(await client.pullRequest(token, 'PR_unknown')).toBeNull();
  });

  it("gives a failed task's reason from its session, as GitHub's description places it", async () => {
    fake.scriptTasks(['in_progress', { state: 'failed', error: 'the build broke' }]);
    const started = await client.startAgentTask(token, 'acme/shop', {
      prompt: 'Fix it',
      baseRef: 'main',
    });
    const task = await client.getAgentTask(token, 'acme/shop', started.id);
    expect(task).toMatchObject({ state: 'failed', error: 'the build broke' });
  });

  it('finds a task it started by the marker in its prompt, though the list shows no prompt', async () => {
    fake.scriptTasks(['in_progress']);
    const requestedAt = new Date();
    const marker = '<!-- ferry-dispatch: dsp_lost -->';
    await client.startAgentTask(token, 'acme/shop', { prompt: 'Another task', baseRef: 'main' });
    const lost = await client.startAgentTask(token, 'acme/shop', {
      prompt: `Fix the problem reported in issue #12.\n\n${marker}`,
      baseRef: 'main',
    });
    const lookFor = { marker, requestedAt, baseRef: 'main', issueNumber: 12 };
    expect((await client.findStartedTask(token, 'acme/shop', lookFor))?.id).toBe(lost.id);
    // Tasks created before the request went out are not candidates.
    const later = new Date(Date.now() + 10 * 60_000);
    expect(
      await client.findStartedTask(token, 'acme/shop', { ...lookFor, requestedAt: later }),
    ).toBeNull();
    const list = fake.requestsTo('GET', '/agents/repos/acme/shop/tasks').at(-1)!;
    expect(list.query).toMatchObject({ sort: 'created_at', direction: 'desc' });
  });

  it('without any session prompt, adopts the one new task on the base ref whose name names the issue', async () => {
    // GitHub's description does not require a session's prompt: then only the name (derived
    // from the prompt) and the session's base ref are left to go by, and only an unambiguous
    // match is taken.
    fake.scriptTasks(['in_progress']);
    fake.showSessionPrompts(false);
    try {
      const requestedAt = new Date();
      const marker = '<!-- ferry-dispatch: dsp_unnamed -->';
      const start = (issue: number, baseRef = 'main') =>
        client.startAgentTask(token, 'acme/shop', {
          prompt: `Fix the problem reported in issue #${issue} and open a pull request.\n\n${marker}`,
          baseRef,
        });
      await start(120);
      await start(21, 'develop');
      const lost = await start(21);
      const lookFor = { marker, requestedAt, baseRef: 'main', issueNumber: 21 };
      expect((await client.findStartedTask(token, 'acme/shop', lookFor))?.id).toBe(lost.id);
      // Two such tasks: which one this dispatch started cannot be told, so neither is taken.
      await start(21);
      expect(await client.findStartedTask(token, 'acme/shop', lookFor)).toBeNull();
    } finally {
      fake.showSessionPrompts(true);
    }
  });

  it(`sends the assignment with both GraphQL features the coding-agent docs ask for (${PREVIEW_DOCS})`, async () => {
    const installationId = String(
      fake.addInstallation({ account: 'zed', repos: [{ name: 'app' }], users: ['ada-gh'] }).id,
    );
    const issue = await client.createIssue(installationId, 'zed/app', {
      title: 'Assign me',
      body: '',
    });
    await client.assignCodingAgent(token, 'zed/app', { nodeId: issue.nodeId, baseRef: 'main' });
    expect(fake.issues('zed/app')[0]?.assignees).toEqual(['copilot-swe-agent']);
    const mutation = fake
      .requestsTo('POST', '/graphql')
      .filter((r) => JSON.stringify(r.body).includes('replaceActorsForAssignable'))
      .at(-1)!;
    expect(mutation.headers['graphql-features']).toBe(
      'issues_copilot_assignment_api_support,coding_agent_model_selection',
    );
  });
});
