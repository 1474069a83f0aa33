import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidPng, waitUntil } from '@ferry/testing';
import { checkScreenshotBytes, insertScreenshot } from '@ferry/workspace';
import { dispatchMarker } from '../src/issue-body.js';
import { dispatchWorld, type DispatchWorld } from './support/world.js';

/**
 * The hosted-agent flow end to end against the fake GitHub: issue, agent task (or the fallback
 * assignment), triage, polling, conversation messages; and what GitHub's faults do to it.
 */
describe('hosted dispatch flow', () => {
  let world: DispatchWorld;

  beforeAll(async () => {
    world = await dispatchWorld({ env: { DISPATCH_RETRY_MS: '50' } });
  });
  afterAll(() => world.close());

  /** Dispatches a new ticket through the API and waits until its dispatch ends. */
  async function runToEnd(
    overrides: Parameters<DispatchWorld['fileTicket']>[0] = {},
    waitFor: string[] = ['completed', 'failed'],
  ) {
    const ticket = await world.fileTicket(overrides);
    const res = await world.dispatch(ticket.id, world.shop.id);
    expect(res.status).toBe(202);
    const seen: string[] = [];
    await waitUntil(async () => {
      const { dispatches } = await world.ticket(ticket.id);
      const status = dispatches[0]?.status;
      if (status && seen.at(-1) !== status) seen.push(status);
      return waitFor.includes(status ?? '');
    }, 'the dispatch to end');
    const { status, dispatches } = await world.ticket(ticket.id);
    return {
      ticket,
      seen,
      status,
      dispatch: dispatches[0]!,
      messages: await world.messages(ticket),
    };
  }

  it('opens the issue, starts the task, triages the ticket and reports the PR', async () => {
    world.fake.scriptTasks([
      'queued',
      'in_progress',
      { state: 'in_progress', pr: true },
      { state: 'completed', pr: true },
    ]);
    const issuesBefore = world.fake.issues('acme/shop').length;
    const run = await runToEnd();
    expect(run.dispatch.status).toBe('completed');
    expect(run.seen).toContain('pr_opened');
    expect(run.status).toBe('triaged');
    expect(run.dispatch.pr_url).toMatch(/\/acme\/shop\/pull\/\d+$/);
    expect(run.dispatch.issue_url).toMatch(/\/acme\/shop\/issues\/\d+$/);
    expect(world.fake.issues('acme/shop')).toHaveLength(issuesBefore + 1);

    const [issueCall] = world.fake.requestsTo('POST', '/repos/acme/shop/issues').slice(-1);
    expect(issueCall!.headers.authorization).toMatch(/^Bearer ghs_/);
    // SPEC's body, then one line linking to the ticket's page (absolute, from PUBLIC_URL).
    const { workspace } = world;
    const link = `Ticket in Ferry: ${world.ctx.config.PUBLIC_URL}/w/${workspace.id}/${workspace.slug}/feedback/${run.ticket.id}`;
    const issueText = String((issueCall!.body as { body: string }).body);
    expect(issueText.split('\n').slice(-2)).toEqual([link, dispatchMarker(run.dispatch.id)]);
    expect(issueText.split('\n').filter((line) => line.startsWith('Ticket in Ferry'))).toEqual([
      link,
    ]);
    const [taskCall] = world.fake.requestsTo('POST', '/agents/repos/acme/shop/tasks').slice(-1);
    expect(taskCall!.headers.authorization).toMatch(/^Bearer ghu_/);
    expect(taskCall!.headers['x-github-api-version']).toBe('2026-03-10');
    expect(taskCall!.body).toMatchObject({ base_ref: 'main', create_pull_request: true });
    expect(String((taskCall!.body as { prompt: string }).prompt)).toContain(
      run.dispatch.issue_url!.split('/').pop()!,
    );

    // The task's pull artifact names the PR only by its GraphQL global id (GitHub's description):
    // its URL came from a node(id:) lookup with the member's token, once.
    const lookups = world.fake
      .requestsTo('POST', /graphql$/)
      .filter((r) => JSON.stringify(r.body).includes('node(id:'));
    expect(lookups.length).toBe(1);
    expect(lookups[0]!.headers.authorization).toMatch(/^Bearer ghu_/);
    expect(run.messages).toEqual([
      expect.stringMatching(
        /^Opened issue #\d+ in acme\/shop .* started GitHub’s coding agent on main\.$/,
      ),
      `GitHub’s coding agent opened a pull request: ${run.dispatch.pr_url}`,
      `GitHub’s coding agent completed the task. Pull request: ${run.dispatch.pr_url}`,
    ]);
  });

  it('never sends the ticket’s screenshot to GitHub: no image or screenshot URL in the issue', async () => {
    world.fake.scriptTasks([{ state: 'completed', pr: true }]);
    const ticket = await world.fileTicket({ note: 'The total is wrong, see the screenshot.' });
    await insertScreenshot(world.ctx.db, ticket, checkScreenshotBytes(solidPng(32, 24, [0, 0, 0])));
    const issuesBefore = world.fake.requestsTo('POST', '/repos/acme/shop/issues').length;
    const res = await world.dispatch(ticket.id, world.shop.id);
    expect(res.status).toBe(202);
    await waitUntil(async () => {
      const status = (await world.ticket(ticket.id)).dispatches[0]?.status;
      return status === 'completed' || status === 'failed';
    }, 'the dispatch of the ticket with a screenshot to end');
    const calls = world.fake.requestsTo('POST', '/repos/acme/shop/issues');
    expect(calls.length).toBe(issuesBefore + 1);
    const issue = calls.at(-1)!;
    const body = String((issue.body as { body: string }).body);
    expect(body).toContain('The total is wrong, see the screenshot.');
    // The note's own word aside, nothing points at an image: no markdown image, no data URL,
    // no screenshot route, no image file.
    const rest = body.replace('The total is wrong, see the screenshot.', '');
    expect(rest).not.toMatch(/screenshot|!\[|data:image|\/screenshot\b|\.(png|jpe?g|webp)\b|<img/i);
    for (const task of world.fake.requestsTo('POST', '/agents/repos/acme/shop/tasks')) {
      expect(JSON.stringify(task.body)).not.toMatch(/\/screenshot\b|data:image|<img/i);
    }
  });

  it('tells the conversation when the agent waits on the user, and when it fails', async () => {
    world.fake.scriptTasks([
      'in_progress',
      'waiting_for_user',
      'in_progress',
      { state: 'failed', error: 'the test suite did not pass' },
    ]);
    const run = await runToEnd();
    expect(run.seen).toEqual(expect.arrayContaining(['waiting_on_user', 'failed']));
    // GitHub's own reason, from the failed session (sessions[].error.message).
    expect(run.dispatch.error).toBe('GitHub’s coding agent failed: the test suite did not pass');
    expect(run.dispatch.task_state).toBe('failed');
    expect(run.messages[1]).toMatch(/^GitHub’s coding agent is waiting on you: http/);
    expect(run.messages.at(-1)).toBe(
      'Dispatch failed: GitHub’s coding agent failed: the test suite did not pass',
    );
    // A failed dispatch still triaged the ticket: the agent did start.
    expect(run.status).toBe('triaged');
  });

  it('assigns the issue to the coding agent when the task API is refused to the account', async () => {
    world.fake.refuseAgentTasks('ada-gh', 403);
    world.fake.scriptAssignment(['none', 'pr', 'merged']);
    try {
      const run = await runToEnd();
      expect(run.seen).toEqual(expect.arrayContaining(['assigned', 'pr_opened', 'completed']));
      const assign = world.fake
        .requestsTo('POST', /graphql$/)
        .filter((r) => JSON.stringify(r.body).includes('replaceActorsForAssignable'))
        .at(-1)!;
      // "Using Copilot cloud agent via the API" asks for both features on the assignment
      // (docs.github.com/copilot/how-tos/use-copilot-agents/cloud-agent/use-cloud-agent-via-the-api,
      // read 2026-11-25: PREVIEW_DOCS in packages/testing).
      expect(assign.headers['graphql-features']).toBe(
        'issues_copilot_assignment_api_support,coding_agent_model_selection',
      );
      expect(assign.headers.authorization).toMatch(/^Bearer ghu_/);
      expect(assign.body).toMatchObject({
        variables: {
          input: { actorIds: ['BOT_kgDOC9w8XQ'], agentAssignment: { baseRef: 'main' } },
        },
      });
      const issue = world.fake
        .issues('acme/shop')
        .find((i) => i.htmlUrl === run.dispatch.issue_url)!;
      expect(issue.assignees).toContain('copilot-swe-agent');
      expect(run.messages[0]).toMatch(/assigned it to GitHub’s coding agent/);
      expect(run.status).toBe('triaged');
    } finally {
      world.fake.allowAgentTasks('ada-gh');
    }
  });

  it('never moves a closed ticket back to triaged: a dispatch is work on it, not a reopening', async () => {
    world.fake.scriptTasks(['in_progress', { state: 'completed', pr: true }]);
    const run = await runToEnd({ status: 'closed' });
    expect(run.dispatch.status).toBe('completed');
    expect(run.status).toBe('closed');
  });
});
