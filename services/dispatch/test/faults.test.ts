import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, SecretBox } from '@ferry/core';
import { findInstallation, userTokenFor } from '@ferry/github';
import { writeEvent } from '@ferry/queues';
import { waitUntil } from '@ferry/testing';
import { dispatchMarker } from '../src/issue-body.js';
import { dispatchWorld, type DispatchWorld } from './support/world.js';

/** GitHub failing in every way we know of: the flow waits, retries, and never repeats a step. */
describe('hosted dispatch when GitHub fails', () => {
  let world: DispatchWorld;

  beforeAll(async () => {
    world = await dispatchWorld({
      env: { DISPATCH_RETRY_MS: '50', DISPATCH_RETRY_LIMIT: '4', GITHUB_TIMEOUT_MS: '1000' },
    });
    world.fake.scriptTasks(['in_progress', { state: 'completed', pr: true }]);
  });
  afterAll(() => world.close());

  async function dispatchAndWait(waitFor: string[] = ['completed', 'failed']) {
    const ticket = await world.fileTicket();
    expect((await world.dispatch(ticket.id, world.shop.id)).status).toBe(202);
    await waitUntil(async () => {
      const { dispatches } = await world.ticket(ticket.id);
      return waitFor.includes(dispatches[0]?.status ?? '');
    }, 'the dispatch to end');
    const { dispatches } = await world.ticket(ticket.id);
    return { ticket, dispatch: dispatches[0]!, messages: await world.messages(ticket) };
  }

  const issuesOpened = () => world.fake.issues('acme/shop').length;

  it('retries 5xx answers and a timeout, opening exactly one issue', async () => {
    const before = issuesOpened();
    world.fake.failNext({ method: 'POST', path: '/repos/acme/shop/issues', status: 502, times: 2 });
    world.fake.hangNext({ method: 'POST', path: '/repos/acme/shop/issues' });
    world.fake.failNext({ method: 'POST', path: '/agents/repos/acme/shop/tasks', status: 503 });
    const run = await dispatchAndWait();
    expect(run.dispatch.status).toBe('completed');
    expect(issuesOpened()).toBe(before + 1);
    expect(world.fake.requestsTo('POST', '/repos/acme/shop/issues').length).toBeGreaterThanOrEqual(
      4,
    );
  });

  it('waits out a rate limit as long as GitHub says, then goes on', async () => {
    const before = issuesOpened();
    const reset = Math.ceil(Date.now() / 1000) + 1;
    world.fake.failNext({
      method: 'POST',
      path: '/repos/acme/shop/issues',
      status: 403,
      body: { message: 'API rate limit exceeded' },
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
    });
    world.fake.failNext({
      method: 'POST',
      path: '/agents/repos/acme/shop/tasks',
      status: 429,
      headers: { 'retry-after': '1' },
    });
    const started = Date.now();
    const run = await dispatchAndWait();
    expect(run.dispatch.status).toBe('completed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(issuesOpened()).toBe(before + 1);
  });

  it('refreshes a refused user token once and carries on', async () => {
    world.fake.revokeUserTokens('ada-gh');
    const refreshesBefore = refreshGrants();
    const run = await dispatchAndWait();
    expect(run.dispatch.status).toBe('completed');
    expect(refreshGrants()).toBe(refreshesBefore + 1);
  });

  it('fails with a message naming the member to re-authorize when the refresh is refused too', async () => {
    world.fake.revokeUserTokens('ada-gh');
    world.fake.failNext({
      method: 'POST',
      path: '/login/oauth/access_token',
      status: 200,
      body: {
        error: 'bad_refresh_token',
        error_description: 'The refresh token passed is incorrect or expired.',
      },
    });
    const run = await dispatchAndWait();
    expect(run.dispatch.status).toBe('failed');
    const name = world.ada.user.name;
    expect(run.dispatch.error).toContain(`${name} must authorize GitHub again`);
    expect(run.messages.at(-1)).toContain(`${name} must authorize GitHub again`);
    // The issue was opened (installation token) before the user token was needed.
    expect(run.dispatch.issue_url).toMatch(/issues\/\d+$/);
    await world.authorize(world.ada, 'ada-gh');
  });

  it('gives up after GitHub fails DISPATCH_RETRY_LIMIT times in a row, saying so', async () => {
    world.fake.failNext({ method: 'POST', path: '/repos/acme/shop/issues', status: 500, times: 4 });
    const run = await dispatchAndWait();
    expect(run.dispatch.status).toBe('failed');
    expect(run.dispatch.error).toMatch(
      /^GitHub kept failing after 4 tries: GitHub failed opening the issue \(HTTP 500\)/,
    );
    expect(run.messages).toEqual([`Dispatch failed: ${run.dispatch.error}`]);
  });

  it('adopts the issue an earlier run opened but could not record, instead of opening another', async () => {
    const ticket = await world.fileTicket();
    // A dispatch as a run killed mid-request leaves it: the issue request went out (and GitHub
    // opened the issue), but its answer never got recorded.
    const dispatch = await world.ctx.db
      .insertInto('dispatches')
      .values({
        id: newId('dispatch'),
        workspace_id: world.workspace.id,
        feedback_id: ticket.id,
        repo_id: world.shop.id,
        started_via: 'member',
        started_by_member_id: world.ada.id,
        run_as_member_id: world.ada.id,
        issue_requested_at: new Date(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const installation = (await findInstallation(world.ctx.db, world.workspace.id))!;
    const earlier = await world.client.createIssue(installation.installation_id, 'acme/shop', {
      title: 'Feedback: from the lost run',
      body: `...\n${dispatchMarker(dispatch.id)}`,
    });
    const before = issuesOpened();
    await writeEvent(world.ctx.db, 'dispatch_requested', {
      dispatchId: dispatch.id,
      workspaceId: world.workspace.id,
    });
    await waitUntil(async () => {
      const { dispatches } = await world.ticket(ticket.id);
      return dispatches[0]?.status === 'completed';
    }, 'the dispatch to complete');
    expect(issuesOpened()).toBe(before);
    const { dispatches } = await world.ticket(ticket.id);
    expect(dispatches[0]!.issue_url).toBe(earlier.url);
  });

  it('adopts the agent task an earlier run started but could not record, instead of starting another', async () => {
    const ticket = await world.fileTicket();
    const installation = (await findInstallation(world.ctx.db, world.workspace.id))!;
    const id = newId('dispatch');
    const issue = await world.client.createIssue(installation.installation_id, 'acme/shop', {
      title: 'Feedback: from the lost run',
      body: `...\n${dispatchMarker(id)}`,
    });
    // As a run killed mid-request leaves it: the issue recorded, the task request sent (and
    // GitHub started the task), its answer never recorded.
    const requestedAt = new Date();
    await world.ctx.db
      .insertInto('dispatches')
      .values({
        id,
        workspace_id: world.workspace.id,
        feedback_id: ticket.id,
        repo_id: world.shop.id,
        started_via: 'member',
        started_by_member_id: world.ada.id,
        run_as_member_id: world.ada.id,
        status: 'issue_opened',
        issue_requested_at: requestedAt,
        issue_number: issue.number,
        issue_node_id: issue.nodeId,
        issue_url: issue.url,
        task_requested_at: requestedAt,
      })
      .execute();
    const box = new SecretBox(world.ctx.config.APP_SECRET);
    const token = await userTokenFor(world.ctx.db, box, world.client, world.ada.id);
    // Another task of the same member in the same repo, started just before: not this dispatch's.
    await world.client.startAgentTask(token, 'acme/shop', {
      prompt: `Fix the problem reported in issue #${issue.number - 1} and open a pull request.`,
      baseRef: 'main',
    });
    const earlier = await world.client.startAgentTask(token, 'acme/shop', {
      prompt: `Fix the problem reported in issue #${issue.number} (${issue.url}) and open a pull request.\n\n${dispatchMarker(id)}`,
      baseRef: 'main',
    });
    const tasksBefore = world.fake.tasks().length;
    // The fake lists tasks as GitHub does, without their prompt: the marker shows only on the
    // task's own page (its session's prompt).
    await writeEvent(world.ctx.db, 'dispatch_requested', {
      dispatchId: id,
      workspaceId: world.workspace.id,
    });
    await waitUntil(async () => {
      const { dispatches } = await world.ticket(ticket.id);
      return dispatches[0]?.status === 'completed';
    }, 'the dispatch to complete');
    expect(world.fake.tasks()).toHaveLength(tasksBefore);
    const row = await world.ctx.db
      .selectFrom('dispatches')
      .select('task_id')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.task_id).toBe(earlier.id);
  });

  function refreshGrants(): number {
    return world.fake
      .requestsTo('POST', '/login/oauth/access_token')
      .filter((r) => JSON.stringify(r.body).includes('refresh_token')).length;
  }
});

describe('hosted dispatch on a GitHub Enterprise Server base URL', () => {
  let world: DispatchWorld;
  beforeAll(async () => {
    world = await dispatchWorld({ pathPrefix: '/ghe' });
    world.fake.scriptTasks(['in_progress', { state: 'completed', pr: true }]);
  });
  afterAll(() => world.close());

  it('sends every call under the configured API and web base URLs', async () => {
    expect(world.fake.apiUrl).toMatch(/\/ghe\/api\/v3$/);
    const ticket = await world.fileTicket();
    expect((await world.dispatch(ticket.id, world.shop.id)).status).toBe(202);
    await waitUntil(async () => {
      const { dispatches } = await world.ticket(ticket.id);
      return dispatches[0]?.status === 'completed';
    }, 'the dispatch to complete');
    const urls = world.fake.requests.map((r) => new URL(r.url, 'http://x').pathname);
    expect(urls.length).toBeGreaterThan(5);
    for (const path of urls) expect(path.startsWith('/ghe/')).toBe(true);
    expect(urls).toContain('/ghe/api/v3/repos/acme/shop/issues');
    expect(urls).toContain('/ghe/login/oauth/access_token');
  });
});
