import type { Db, Feedback, GithubRepo, Member, Workspace } from '@ferry/db';
import {
  createGitHubClient,
  recordInstallation,
  saveAuthorization,
  setDispatchIdentity,
  setRepoSwitches,
  syncRepos,
  type GitHubClient,
} from '@ferry/github';
import { createRedisConnection, startJobs, type RunningJobs } from '@ferry/queues';
import {
  createApiToken,
  createFeedback,
  createMember,
  createTestContext,
  createWorkspace,
  startApp,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import { FakeGitHub } from '@ferry/testing/fake-github';
import { listDispatches, startRelay } from '@ferry/workspace';
import { SecretBox } from '@ferry/core';
import { createDispatchApp } from '../../src/app.js';
import { loadDispatchSettings } from '../../src/config.js';
import { dispatchDeps } from '../../src/deps.js';
import { dispatchJobs } from '../../src/jobs/index.js';

/**
 * One workspace wired to a fake GitHub the way an admin would leave it: the App installed on
 * `acme` with `acme/shop` (and `acme/docs`, linked but not enabled), a member authorized as
 * `ada-gh`, and API tokens. The dispatch service runs in this process: its HTTP app, its worker
 * (optional, so a test can run it in a child it kills) and the outbox relay.
 */
export interface DispatchWorld {
  ctx: TestContext;
  fake: FakeGitHub;
  client: GitHubClient;
  app: RunningApp;
  workspace: Workspace;
  owner: Member;
  ada: Member & { user: { name: string } };
  shop: GithubRepo;
  docs: GithubRepo;
  writeToken: string;
  readToken: string;
  env: Record<string, string>;
  fileTicket(overrides?: Parameters<typeof createFeedback>[2]): Promise<Feedback>;
  authorize(member: Member, login: string): Promise<void>;
  dispatch(feedbackId: string, repoId: string, token?: string): Promise<Response>;
  ticket(feedbackId: string): Promise<{ status: string; dispatches: DispatchView[] }>;
  messages(feedback: Feedback): Promise<string[]>;
  startWorker(): void;
  close(): Promise<void>;
}

export interface DispatchView {
  id: string;
  status: string;
  task_state: string | null;
  issue_url: string | null;
  pr_url: string | null;
  error: string | null;
}

export async function dispatchWorld(
  options: { pathPrefix?: string; worker?: boolean; env?: Record<string, string> } = {},
): Promise<DispatchWorld> {
  const fake = await new FakeGitHub(
    options.pathPrefix ? { pathPrefix: options.pathPrefix } : {},
  ).start();
  fake.addUser('ada-gh');
  fake.addUser('owner-gh');
  fake.addInstallation({
    account: 'acme',
    repos: [
      { name: 'shop', defaultBranch: 'main' },
      { name: 'docs', defaultBranch: 'trunk' },
    ],
    users: ['ada-gh', 'owner-gh'],
  });
  fake.callbackUrl = 'http://ferry.test/github/callback';
  const env = {
    ...fake.env(),
    DISPATCH_POLL_MS: '40',
    DISPATCH_POLL_MAX_MS: '200',
    GITHUB_TIMEOUT_MS: '2000',
    ...options.env,
  };
  const ctx = await createTestContext(env);
  const settings = loadDispatchSettings(ctx.env);
  const connection = createRedisConnection(ctx.config.redis, { role: 'producer' });
  const workerConnection = createRedisConnection(ctx.config.redis, { role: 'worker' });
  const jobOptions = {
    config: ctx.config,
    settings,
    db: ctx.db,
    logger: ctx.logger,
    producerConnection: connection,
  };
  const deps = dispatchDeps(jobOptions);
  const app = await startApp(createDispatchApp(deps, ctx.redis));
  const relay = startRelay(ctx);
  if (!settings.github.configured) throw new Error('fake GitHub env not applied');
  const client = createGitHubClient(settings.github.app);
  const box = new SecretBox(ctx.config.APP_SECRET);

  const workspace = await createWorkspace(ctx.db);
  const owner = await createMember(ctx.db, workspace, { role: 'owner' });
  const ada = await createMember(ctx.db, workspace, { role: 'member' });
  const writeToken = (await createApiToken(ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
  const readToken = (await createApiToken(ctx.db, workspace, { scopes: ['tenant:read'] })).raw;

  async function authorize(member: Member, login: string): Promise<void> {
    fake.actAs(login);
    const redirect = 'http://ferry.test/github/callback';
    const answer = await fetch(client.authorizeUrl('state-1', redirect), { redirect: 'manual' });
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    const tokens = await client.exchangeCode(code, redirect);
    const user = await client.getUser(tokens.token);
    await saveAuthorization(ctx.db, box, {
      workspaceId: workspace.id,
      memberId: member.id,
      user,
      tokens,
    });
  }

  // The admin connected the App (their token lists the installation), linked and enabled shop.
  const installationId = (await client.userInstallations(await tokenOf('owner-gh')))[0]!.id;
  async function tokenOf(login: string): Promise<string> {
    fake.actAs(login);
    const redirect = 'http://ferry.test/github/callback';
    const answer = await fetch(client.authorizeUrl('s', redirect), { redirect: 'manual' });
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    return (await client.exchangeCode(code, redirect)).token;
  }
  const installation = await recordInstallation(ctx.db, {
    workspaceId: workspace.id,
    installationId,
    accountLogin: 'acme',
    memberId: owner.id,
  });
  const repos = await syncRepos(ctx.db, client, installation);
  const shop = (await setRepoSwitches(
    ctx.db,
    workspace.id,
    repos.find((r) => r.full_name === 'acme/shop')!.id,
    { enabled: true },
  ))!;
  const docs = (await setRepoSwitches(
    ctx.db,
    workspace.id,
    repos.find((r) => r.full_name === 'acme/docs')!.id,
    { linked: true },
  ))!;
  await authorize(ada, 'ada-gh');
  await setDispatchIdentity(ctx.db, workspace.id, ada.id);

  let jobs: RunningJobs | undefined;
  const startWorker = () => {
    jobs ??= startJobs([dispatchJobs(jobOptions)], {
      connection: workerConnection,
      prefix: ctx.config.REDIS_PREFIX,
      logger: ctx.logger,
    });
  };
  if (options.worker !== false) startWorker();

  return {
    ctx,
    fake,
    client,
    app,
    workspace,
    owner,
    ada,
    shop,
    docs,
    writeToken,
    readToken,
    env: ctx.env,
    fileTicket: (overrides) => createFeedback(ctx.db, workspace, overrides),
    authorize,
    dispatch: (feedbackId, repoId, token = writeToken) =>
      fetch(`${app.url}/api/v1/feedback/${feedbackId}/dispatch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ repo: repoId }),
      }),
    ticket: (feedbackId) => ticketOf(ctx.db, feedbackId),
    messages: (feedback) => messagesOf(ctx.db, feedback),
    startWorker,
    close: async () => {
      await jobs?.stop();
      await relay.stop();
      await app.close();
      await deps.close();
      connection.disconnect();
      workerConnection.disconnect();
      await fake.close();
      await ctx.close();
      // Every request the client sent was one GitHub's description takes, and every answer the
      // fake gave was one it allows.
      fake.assertConformance();
    },
  };
}

async function ticketOf(
  db: Db,
  feedbackId: string,
): Promise<{ status: string; dispatches: DispatchView[] }> {
  const feedback = await db
    .selectFrom('feedback')
    .selectAll()
    .where('id', '=', feedbackId)
    .executeTakeFirstOrThrow();
  return { status: feedback.status, dispatches: await listDispatches(db, feedback) };
}

async function messagesOf(db: Db, feedback: Feedback): Promise<string[]> {
  const rows = await db
    .selectFrom('messages')
    .select('body')
    .where('room_id', '=', feedback.room_id)
    .where('author_kind', '=', 'system')
    .where('display_name', '=', 'GitHub')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.body);
}
