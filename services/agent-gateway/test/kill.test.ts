import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiToken,
  createTestContext,
  createWorkspace,
  freePort,
  waitUntil,
  type TestContext,
} from '@ferry/testing';
import { startRelay } from '@ferry/workspace';
import {
  agentConnected,
  fileNote,
  initRepo,
  repliesPerRoom,
  runAgent,
  runGateway,
  type Proc,
} from './support/procs.js';

/**
 * Real processes killed with SIGKILL: the gateway while it delivers, the agent while it works.
 * Every filed ticket gets exactly one reply from the agent (none lost, none done twice); the fake
 * CLI's log shows which runs started and finished.
 */
describe('agents across kill -9', () => {
  let ctx: TestContext;
  let relay: { stop(): Promise<void> };
  let tmp: string;
  const procs: Proc[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
    relay = startRelay(ctx);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-agent-kill-'));
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await relay?.stop();
    await ctx?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('loses no work item and does none twice when the gateway and then the agent are killed', async () => {
    const port = await freePort();
    const gatewayEnv = { ...ctx.env, AGENT_KEEPALIVE_MS: '500' };
    const startGateway = async () => {
      const p = await runGateway(gatewayEnv, port);
      procs.push(p);
      return p;
    };
    let gateway = await startGateway();

    const workspace = await createWorkspace(ctx.db);
    const token = await createApiToken(ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const repo = path.join(tmp, 'shop');
    fs.mkdirSync(repo);
    initRepo(repo);
    const cliLog = path.join(tmp, 'cli.log');
    const agentEnv = {
      SERVICE_URL: `http://127.0.0.1:${port}`,
      SERVICE_TOKEN: token.raw,
      SERVICE_INSTALL_ID: 'kill-test-0001',
      CODE_ROOT: repo,
      SERVICE_CLI: 'codex',
      SERVICE_STATE_DIR: path.join(tmp, 'state'),
      FAKE_CLI_NO_TOOLS: '1',
      FAKE_CLI_SLEEP: '0.4',
      FAKE_CLI_LOG: cliLog,
    };
    const startAgent = () => {
      const p = runAgent(agentEnv);
      procs.push(p);
      return p;
    };
    let agent = startAgent();
    await agentConnected(ctx.db, workspace.id, agent);

    const TICKETS = 8;
    const tickets: string[] = [];
    for (let i = 0; i < TICKETS; i++)
      tickets.push(await fileNote(ctx.db, workspace.id, `Ticket ${i}`));
    const acked = async () =>
      Number(
        (
          await ctx.db
            .selectFrom('agent_work')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('workspace_id', '=', workspace.id)
            .where('acked_at', 'is not', null)
            .executeTakeFirstOrThrow()
        ).n,
      );
    // 1. The gateway dies while it delivers: some items acked, the rest not yet.
    await waitUntil(async () => (await acked()) >= 1, 'the first ack');
    gateway.child.kill('SIGKILL');
    await gateway.exited;
    gateway = await startGateway();

    // 2. The agent dies in the middle of a CLI run, and starts again with the same state.
    const started = () =>
      fs.existsSync(cliLog)
        ? fs
            .readFileSync(cliLog, 'utf8')
            .split('\n')
            .filter((line) => line.includes('"start"')).length
        : 0;
    await waitUntil(() => started() >= 3, 'a few CLI runs', 30_000);
    agent.child.kill('SIGKILL');
    await agent.exited;
    agent = startAgent();

    // Every ticket ends with exactly one reply from the agent.
    const total = async () => (await repliesPerRoom(ctx.db, tickets)).reduce((x, y) => x + y, 0);
    await waitUntil(async () => (await total()) >= TICKETS, 'every reply', 90_000).catch(
      async (error: unknown) => {
        throw new Error(
          `${String(error)}: ${await total()} replies, ${await acked()} acked\n` +
            `agent:\n${agent.log()}\ngateway:\n${gateway.log().slice(-3000)}`,
        );
      },
    );
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await repliesPerRoom(ctx.db, tickets)).toEqual(Array(TICKETS).fill(1));
    expect(await acked()).toBe(TICKETS);
    agent.child.kill('SIGTERM');
    gateway.child.kill('SIGTERM');
    await Promise.all([agent.exited, gateway.exited]);
  });
});
