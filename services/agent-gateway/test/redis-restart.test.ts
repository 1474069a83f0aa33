import { execFileSync } from 'node:child_process';
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
  run,
  runAgent,
  runGateway,
  type Proc,
} from './support/procs.js';

/**
 * Redis restarted under a running gateway and agent (a Redis of this test's own, with AOF, so the
 * shared one other test files use is never touched): tickets filed while it is down wait in the
 * outbox, and every ticket, before and after, gets exactly one reply.
 */
describe('agents across a Redis restart', () => {
  let ctx: TestContext;
  let tmp: string;
  let redisPort: number;
  const procs: Proc[] = [];
  /** This test's own Redis, stopped last. */
  const redises: Proc[] = [];
  let relay: { stop(): Promise<void> } | undefined;

  const startRedis = () => {
    const p = run(
      'redis-server',
      [
        '--port',
        String(redisPort),
        '--bind',
        '127.0.0.1',
        '--appendonly',
        'yes',
        '--save',
        '',
        '--dir',
        tmp,
      ],
      {},
    );
    redises.push(p);
    return p;
  };

  beforeAll(async () => {
    try {
      execFileSync('redis-server', ['--version']);
    } catch {
      throw new Error(
        'redis-server is not installed (apt-get install redis-server): this test runs a Redis of its own',
      );
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-redis-restart-'));
    redisPort = await freePort();
    startRedis();
    await waitUntil(() => {
      try {
        execFileSync('redis-cli', ['-p', String(redisPort), 'ping']);
        return true;
      } catch {
        return false;
      }
    }, 'the private Redis');
    ctx = await createTestContext({ REDIS_URL: `redis://127.0.0.1:${redisPort}/0` });
    relay = startRelay(ctx);
  });
  afterAll(async () => {
    await relay?.stop();
    // Everything but Redis first; the context cleans its keys while Redis still answers.
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await ctx?.close().catch(() => undefined);
    for (const p of redises) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(redises.map((p) => p.exited));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('loses no ticket and answers none twice', async () => {
    const port = await freePort();
    const gateway = await runGateway({ ...ctx.env, AGENT_KEEPALIVE_MS: '500' }, port);
    procs.push(gateway);
    const workspace = await createWorkspace(ctx.db);
    const token = await createApiToken(ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const repo = path.join(tmp, 'shop');
    fs.mkdirSync(repo);
    initRepo(repo);
    const agent = runAgent({
      SERVICE_URL: `http://127.0.0.1:${port}`,
      SERVICE_TOKEN: token.raw,
      SERVICE_INSTALL_ID: 'redis-restart-01',
      CODE_ROOT: repo,
      SERVICE_CLI: 'claude',
      SERVICE_STATE_DIR: path.join(tmp, 'state'),
      FAKE_CLI_NO_TOOLS: '1',
    });
    procs.push(agent);
    await agentConnected(ctx.db, workspace.id, agent);
    const rooms: string[] = [];
    const file = async (note: string) => {
      rooms.push(await fileNote(ctx.db, workspace.id, note));
    };
    const total = async () => (await repliesPerRoom(ctx.db, rooms)).reduce((x, y) => x + y, 0);
    await file('before 1');
    await file('before 2');
    await waitUntil(async () => (await total()) === 2, 'the first replies', 30_000);

    // Redis goes down; tickets are filed meanwhile; it comes back with its AOF.
    execFileSync('redis-cli', ['-p', String(redisPort), 'shutdown']);
    await redises[0]!.exited;
    await file('while down 1');
    await file('while down 2');
    await new Promise((r) => setTimeout(r, 1_500));
    startRedis();
    await file('after');

    await waitUntil(async () => (await total()) >= 5, 'every reply', 90_000).catch(
      async (error: unknown) => {
        throw new Error(
          `${String(error)}: ${await total()} replies\nagent:\n${agent.log()}\n` +
            `gateway:\n${gateway.log().slice(-2000)}`,
        );
      },
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await repliesPerRoom(ctx.db, rooms)).toEqual([1, 1, 1, 1, 1]);
    agent.child.kill('SIGTERM');
    gateway.child.kill('SIGTERM');
    await Promise.all([agent.exited, gateway.exited]);
  });
});
