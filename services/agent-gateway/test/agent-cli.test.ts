import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildMinifiedApp,
  minifiedAppStack,
  storeMinifiedApp,
  waitUntil,
  THROW_LINE,
  type MinifiedApp,
} from '@ferry/testing';
import {
  fileFeedback,
  postMessage,
  prepareEvidence,
  workEvidenceSchema,
  type PreparedEvidence,
} from '@ferry/workspace';
import { agentWorkspace, startGateway, type Gateway } from './support/gateway.js';
import { agentConnected, runAgent, type Proc } from './support/procs.js';

const gitEnv = {
  GIT_AUTHOR_NAME: 'Agent',
  GIT_AUTHOR_EMAIL: 'agent@example.com',
  GIT_COMMITTER_NAME: 'Agent',
  GIT_COMMITTER_EMAIL: 'agent@example.com',
};
const FIX = 'src/app.ts:export function pay() {\\n  return true;\\n}\\n';

interface CliRun {
  event: string;
  argv: string[];
  prompt?: string;
}

/**
 * A filed feedback -> the Python agent -> the conversation, with the fake CLI replaying the
 * recorded Claude Code and Codex transcripts (packages/agent/tests/fixtures, issue #23): the
 * chips, the proposal and the reply land in the ticket's conversation, a refused command shows as
 * blocked, and a follow-up from a member whose name begins with `-` reaches each CLI on stdin.
 */
describe('the local agent with each CLI, end to end', () => {
  let gateway: Gateway;
  let tmp: string;
  const agents: Proc[] = [];

  beforeAll(async () => {
    gateway = await startGateway({ AGENT_KEEPALIVE_MS: '500' });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-agent-cli-'));
  });
  afterAll(async () => {
    for (const a of agents) if (a.child.exitCode === null) a.child.kill('SIGTERM');
    await Promise.all(agents.map((a) => a.exited));
    await gateway?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /**
   * A workspace, a checkout with src/app.ts and the agent connected with the fake CLI; then a
   * ticket, filed with `widget`'s evidence (and the app's source maps uploaded) when given.
   */
  async function setUp(
    cli: 'claude' | 'codex',
    env: Record<string, string>,
    widget?: { dir: string; evidence: PreparedEvidence; app: MinifiedApp },
  ) {
    const { workspace, owner, token } = await agentWorkspace(gateway);
    const dir = widget?.dir ?? cli;
    const repo = path.join(tmp, dir, 'shop');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(repo, 'src', 'app.ts'),
      'export function pay() {\n  return false;\n}\n',
    );
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: repo, env: { ...process.env, ...gitEnv } });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'initial');
    const cliLog = path.join(tmp, dir, 'cli.log');
    const agent = runAgent({
      ...gitEnv,
      SERVICE_URL: gateway.url,
      SERVICE_TOKEN: token.raw,
      SERVICE_INSTALL_ID: `cli-e2e-${dir}-01`,
      CODE_ROOT: repo,
      SERVICE_CLI: cli,
      SERVICE_STATE_DIR: path.join(tmp, dir, 'state'),
      SERVICE_PROGRESS_SECONDS: '0',
      FAKE_CLI_EDIT: FIX,
      FAKE_CLI_LOG: cliLog,
      ...env,
    });
    agents.push(agent);
    await agentConnected(gateway.ctx.db, workspace.id, agent);
    if (widget) await storeMinifiedApp(gateway.ctx.db, workspace.id, widget.app);
    const ticket = await fileFeedback(
      gateway.ctx.db,
      workspace.id,
      {
        note: 'The pay button does nothing',
        title: null,
        reporter: { label: 'Ada', role: 'customer', email: 'ada@example.com' },
        page: { url: null, path: '/checkout', controller_action: 'checkout#show', partials: [] },
        element: { selector: 'button#pay', tag: 'button', text: 'Pay', outer_html: null },
      },
      { evidence: widget?.evidence },
    );
    const runs = (): CliRun[] =>
      fs.existsSync(cliLog)
        ? fs
            .readFileSync(cliLog, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as CliRun)
            .filter((run) => run.event === 'start')
        : [];
    return { workspace, owner, agent, ticket, room: ticket.room_id, runs };
  }

  /** The agent's messages in the room, in order, once it has posted `replies` replies. */
  async function conversation(room: string, agent: Proc, replies: number) {
    const read = () =>
      gateway.ctx.db
        .selectFrom('messages')
        .select(['kind', 'body'])
        .where('room_id', '=', room)
        .where('author_kind', '=', 'agent')
        .orderBy('id')
        .execute();
    await waitUntil(
      async () => (await read()).filter((m) => m.kind === 'text').length >= replies,
      `${replies} agent repl${replies === 1 ? 'y' : 'ies'} in the conversation`,
      30_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nagent log:\n${agent.log()}`);
    });
    const messages = await read();
    const chips = messages
      .filter((m) => m.kind === 'progress')
      .flatMap((m) => m.body.split(' · '))
      .join(' · ');
    return { messages, chips, replies: messages.filter((m) => m.kind === 'text') };
  }

  it('Claude Code: a refused `npm test` is a Blocked chip, the reply says the tests did not run, and a follow-up from "-x" resumes the session', async () => {
    const { workspace, owner, agent, room, runs } = await setUp('claude', {
      FAKE_CLI_FIXTURE: 'denied-bash',
    });
    const { messages, chips, replies } = await conversation(room, agent, 1);
    expect(chips).toBe(
      'Reading src/app.ts · Searching for Pay · Editing src/app.ts · Blocked: npm test',
    );
    expect(messages.map((m) => m.kind)).toContain('proposal');
    expect(replies[0]!.body).toMatch(
      /^Fixed the pay button and the tests pass\.\n\nThe click handler was missing\.\n\nBlocked: the coding CLI's permissions refused this, so it did not run \(the tests did not run, whatever the text above says\):\n- Bash: `npm test`\n/,
    );
    const [run] = runs();
    expect(run!.argv).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash(npm test:*)',
    ]);
    expect(run!.prompt).toContain('The pay button does nothing');
    // Its heartbeats name the CLI and its version, for the Dispatch card.
    const cli = async () =>
      (
        await gateway.ctx.db
          .selectFrom('agents')
          .select('cli')
          .where('workspace_id', '=', workspace.id)
          .executeTakeFirstOrThrow()
      ).cli;
    await waitUntil(async () => (await cli()) === 'claude 2.1.332', 'a heartbeat naming the CLI');

    // A follow-up from a member named "-x": Claude Code's commander would read it as an option.
    await postMessage(gateway.ctx.db, {
      roomId: room,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: owner.id,
      displayName: '-x',
      body: '@shop also make it green',
    });
    await conversation(room, agent, 2);
    const [, follow] = runs();
    expect(follow!.argv.slice(-2)[0]).toBe('--resume');
    expect(follow!.argv.at(-1)).toMatch(/^[0-9a-f-]{36}$/);
    expect(follow!.argv.slice(0, -2)).toEqual(run!.argv);
    expect(follow!.prompt).toBe('-x wrote to you:\n@shop also make it green');
  });

  it('Codex: chips, proposal and reply; a follow-up from "-x" resumes the thread with the prompt on stdin', async () => {
    const { workspace, owner, agent, room, runs } = await setUp('codex', {});
    const first = await conversation(room, agent, 1);
    expect(first.chips).toBe(
      'Reading src/app.ts · Searching for Pay · Editing src/app.ts · Running npm test',
    );
    expect(first.messages.map((m) => m.kind)).toContain('proposal');
    expect(first.replies[0]!.body).toMatch(
      /^Fixed the pay button\.\n\nThe click handler was missing\.\n\nCommitted [0-9a-f]+ to main/,
    );

    await postMessage(gateway.ctx.db, {
      roomId: room,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: owner.id,
      displayName: '-x', // "%s wrote to you" then begins with a dash
      body: '@shop also make it green',
    });
    const second = await conversation(room, agent, 2);
    expect(second.replies[1]!.body).toBe(
      'The button already submits the form; nothing else to change.',
    );
    const [, follow] = runs();
    const thread = follow!.argv[follow!.argv.indexOf('resume') + 1];
    expect(follow!.argv).toEqual([
      'exec',
      '--json',
      '--sandbox',
      'workspace-write',
      'resume',
      thread,
      '-',
    ]);
    expect(thread).toMatch(/^[0-9a-f-]{36}$/);
    expect(follow!.prompt).toBe('-x wrote to you:\n@shop also make it green');
  });

  it('a widget ticket with evidence: the work item carries it, mapped and scrubbed, and the prompt names it', async () => {
    const app = await buildMinifiedApp();
    const now = Date.now();
    const evidence = prepareEvidence({
      captured_at: now,
      console: [
        { t: now - 9_000, level: 'log', text: 'cart loaded' },
        { t: now - 3_000, level: 'error', text: 'pay failed for card 4111 1111 1111 1111' },
      ],
      network: [
        {
          t: now - 4_000,
          kind: 'fetch',
          method: 'post',
          url: 'https://shop.example.test/api/pay?order=42&token=s3cret',
          status: 500,
          ms: 31,
          size: 12,
        },
        {
          t: now - 5_000,
          kind: 'fetch',
          method: 'GET',
          url: 'https://shop.example.test/api/cart',
          status: 200,
          ms: 8,
          size: 99,
        },
      ],
      errors: [
        {
          t: now - 2_000,
          kind: 'error',
          name: 'TypeError',
          message: 'price is not a number: abc',
          stack: await minifiedAppStack(app),
        },
      ],
      navigation: [{ t: now - 20_000, kind: 'push', url: '/checkout?coupon=FREE' }],
      dropped: { console: 4 },
    });
    const { workspace, agent, ticket, room, runs } = await setUp(
      'claude',
      { FAKE_CLI_FIXTURE: 'denied-bash' },
      { dir: 'widget', evidence, app },
    );
    await conversation(room, agent, 1);

    // The work item, as logged for the agent's stream.
    const work = await gateway.ctx.db
      .selectFrom('agent_work')
      .select('payload')
      .where('workspace_id', '=', workspace.id)
      .where('source', '=', `feedback:${ticket.id}`)
      .executeTakeFirstOrThrow();
    const item = (work.payload as { feedback: { evidence: unknown } }).feedback.evidence;
    const sent = workEvidenceSchema.parse(item);
    expect(sent.failed_requests).toEqual([
      {
        t: now - 4_000,
        method: 'POST',
        url: 'https://shop.example.test/api/pay?order=*&token=*',
        status: 500,
        error: null,
        ms: 31,
      },
    ]);
    expect(sent.errors[0]!.stack.slice(0, 2)).toEqual([
      `at parsePrice (src/money.ts:${THROW_LINE}:11)`,
      expect.stringMatching(/^at checkout \(src\/checkout\.ts:4:\d+\)$/),
    ]);
    expect(sent.console.map((c) => c.text)).toEqual([
      'cart loaded',
      'pay failed for card [Filtered]',
    ]);
    expect(sent.navigation).toEqual([{ t: now - 20_000, kind: 'push', url: '/checkout?coupon=*' }]);
    expect(sent.dropped).toEqual({ console: 4 });
    // The card as it was logged (with its spaces): a bare "4111" can be part of a timestamp.
    expect(JSON.stringify(item)).not.toMatch(/s3cret|4111 1111|FREE/);

    // The prompt the CLI was given names them.
    const prompt = runs()[0]!.prompt!;
    const section = prompt.slice(prompt.indexOf('What the page was doing before the report'));
    expect(section).toContain(
      'Failed requests, oldest first:\n  - POST https://shop.example.test/api/pay?order=*&token=* -> 500 in 31 ms (4.0 s before the report)',
    );
    expect(section).toContain(
      `  - Uncaught TypeError: price is not a number: abc (2.0 s before the report)\n      at parsePrice (src/money.ts:${THROW_LINE}:11)\n      at checkout (src/checkout.ts:4:`,
    );
    expect(section).toContain(
      'Last console lines (errors and warnings first, then in order):\n  - [error] pay failed for card [Filtered]\n  - [log] cart loaded',
    );
    expect(section).toContain('Route changes, oldest first: /checkout?coupon=*');
    expect(prompt).not.toMatch(/s3cret|4111 1111|FREE/);
  });
});
