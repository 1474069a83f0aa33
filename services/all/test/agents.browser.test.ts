import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFerryClient } from '@ferry/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, createMember, createWorkspace, waitUntil } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { startFerry, type FerryHarness } from './support/ferry.js';

const agentDir = fileURLToPath(new URL('../../../packages/agent', import.meta.url));
const fakeCli = path.join(agentDir, 'tests', 'fake_cli.py');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
    },
  }).toString();
}

/**
 * The whole local-agent loop as a newcomer runs it: `pnpm start` (startAll), the Python agent
 * (`python3 -m ferry_agent`) with the fake coding CLI in a real git checkout whose origin is a
 * local bare repo, and a member's browser. Filing feedback reaches the agent within a second; its
 * progress chips, proposal badge and reply appear live in the ticket's conversation; the Dispatch
 * card shows it online with its activity, then 'Not connected' once it stops, without a reload.
 */
describe('a local agent end to end', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  let tmp: string;
  let agent: ChildProcess | undefined;
  let agentLog = '';

  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-agent-e2e-'));
  });
  afterAll(async () => {
    if (agent && agent.exitCode === null) agent.kill('SIGKILL');
    await chrome?.close();
    await ferry?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('receives feedback, streams chips, a proposal and a reply, and shows on the Dispatch card', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const owner = await createMember(db, workspace, { role: 'owner' });
    const dispatch = await createApiToken(db, workspace, { scopes: ['platform:dispatch'] });
    const writer = await createApiToken(db, workspace, { scopes: ['tenant:write'] });

    // A checkout with a bare origin, as on an owner's machine.
    const origin = path.join(tmp, 'origin.git');
    const repo = path.join(tmp, 'code', 'shop');
    fs.mkdirSync(repo, { recursive: true });
    git(tmp, 'init', '--bare', '-b', 'main', origin);
    git(repo, 'init', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'README.md'), '# Shop\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-m', 'initial');
    git(repo, 'remote', 'add', 'origin', origin);
    git(repo, 'push', '-u', 'origin', 'main');

    agent = spawn('python3', ['-m', 'ferry_agent'], {
      cwd: agentDir,
      env: {
        ...process.env,
        SERVICE_URL: ferry.url,
        SERVICE_TOKEN: dispatch.raw,
        SERVICE_INSTALL_ID: 'e2e-install-0001',
        CODE_ROOT: path.join(tmp, 'code'),
        PROJECT: 'shop',
        SERVICE_CLI: 'claude',
        SERVICE_CLI_COMMAND: `python3 ${fakeCli}`,
        SERVICE_STATE_DIR: path.join(tmp, 'state'),
        FAKE_CLI_EDIT: 'app/views/checkout.html:<button id="pay">Pay now</button>\\n',
        FAKE_CLI_REPLY: 'Fixed the pay button: it now submits the form.',
        GIT_AUTHOR_NAME: 'Agent',
        GIT_AUTHOR_EMAIL: 'agent@example.com',
        GIT_COMMITTER_NAME: 'Agent',
        GIT_COMMITTER_EMAIL: 'agent@example.com',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout!.on('data', (c: Buffer) => (agentLog += c.toString()));
    agent.stderr!.on('data', (c: Buffer) => (agentLog += c.toString()));
    const exited = new Promise<void>((resolve) => agent!.once('exit', () => resolve()));

    // Registered, streaming and heartbeating: online.
    await waitUntil(
      async () => {
        const row = await db
          .selectFrom('agents')
          .select(['name', 'last_heartbeat_at', 'stream_seen_at'])
          .where('workspace_id', '=', workspace.id)
          .executeTakeFirst();
        return !!(row?.last_heartbeat_at && row.stream_seen_at);
      },
      () => `the agent to come online; it printed:\n${agentLog}`,
      60_000,
      100,
    );

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, ferry.url, owner.user.email, owner.user.password);
    const base = `${ferry.url}/w/${workspace.id}/${workspace.slug}`;
    await page.goto(base);
    const card = page.locator('.dispatch-card');
    await card.locator('.agent-row', { hasText: '@shop' }).waitFor();
    await card.locator('.agent-state.online').waitFor();

    // File feedback through the API; the agent receives it at once (pushed on its stream).
    const filedAt = Date.now();
    const filed = await createFerryClient(ferry.url, writer.raw).POST('/api/v1/feedback', {
      body: {
        note: 'The pay button does nothing',
        reporter: { label: 'Ada', role: 'customer' },
        page: { path: '/checkout', controller_action: 'checkout#show' },
        element: { selector: 'button#pay', tag: 'button', text: 'Pay' },
      },
    });
    expect(filed.response.status).toBe(201);
    const ticket = filed.data!;
    await page.goto(`${base}/rooms/${ticket.conversation.room_id}`);
    await page.locator('.room[data-connected="true"]').waitFor();
    for (;;) {
      const work = await db
        .selectFrom('agent_work')
        .select('acked_at')
        .where('workspace_id', '=', workspace.id)
        .executeTakeFirst();
      if (work?.acked_at) break;
      // A bound for a hang; the page load above counts here, so it is no measure of delivery.
      if (Date.now() - filedAt > 60_000) throw new Error(`no ack after 60 s:\n${agentLog}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    // Filed -> acked by the agent, both on the database's clock: the page load above (slow while
    // the rest of the suite runs) is not part of it.
    const delivered = await db
      .selectFrom('agent_work as w')
      .innerJoin('feedback as f', 'f.workspace_id', 'w.workspace_id')
      .select(['w.acked_at', 'f.created_at'])
      .where('f.id', '=', ticket.id)
      .executeTakeFirstOrThrow();
    // Pushed at once, not found by the next heartbeat (20 s): acked well before one could have
    // come. How fast is bench/agents' to say: beside two other browser tests on 2 cores this took
    // up to 1.7 s, alone well under one; the bound leaves room for a saturated host.
    expect(delivered.acked_at!.getTime() - delivered.created_at.getTime()).toBeLessThan(15_000);

    // Live, without a reload: chips, the proposal with its badge, the reply.
    await page.locator('li.message.kind-progress').first().waitFor({ timeout: 30_000 });
    const badge = page.locator('li.message.kind-proposal .badge.route');
    await badge.waitFor({ timeout: 30_000 });
    expect(await badge.textContent()).toBe('quick fix');
    expect(await badge.getAttribute('title')).toMatch(/Quick fix: 1 file, \d+ lines?: within 3/);
    await page
      .locator('li.message.author-agent.kind-text', { hasText: 'Fixed the pay button' })
      .waitFor({ timeout: 30_000 });
    await photograph(page, '/tmp/ferry-agent-conversation.png', { fullPage: true });

    // The quick fix is committed to main and pushed to origin.
    const log = git(origin, 'log', '--format=%s%n%b', 'main');
    expect(log).toContain('Service-Work-Id: wrk_');

    // The card shows the agent online, then 'Not connected' within a minute of stopping it.
    await page.goto(base);
    await card.locator('.agent-state.online').waitFor();
    await photograph(page, '/tmp/ferry-dispatch-online.png');
    agent.kill('SIGTERM');
    await exited;
    await card.locator('.agent-state.offline').waitFor({ timeout: 60_000 });
    expect(page.url()).toBe(base);
    await photograph(page, '/tmp/ferry-dispatch-offline.png');
    await context.close();
  });
});
