import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SecretBox } from '@ferry/core';
import {
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  type TestContext,
} from '@ferry/testing';
import { createIncomingKey } from '@ferry/workspace';
import { closedLoop, postJson } from '../lib/closed-loop.js';
import { basePort, ROOT, sleep, startService, stopChild, waitHealthy } from '../lib/children.js';

/**
 * Issue #25: the payload decoders must not cost plain posts more than 10% of their throughput.
 * Before/after in one run: the webhooks-in process as of BENCH_BEFORE_REF (default `main`; its
 * `services/webhooks-in/src` taken with `git archive` into a scratch folder beside the service,
 * so it runs on the same packages and node_modules) and as the work tree has it, alternated
 * BENCH_ROUNDS times (default 2) with a closed loop of BENCH_CONNECTIONS (64) for
 * BENCH_DURATION_S (6) each, posting SPEC.md's Slack-style `text` alias (`{"text", "username"}`:
 * the path that now goes through the mrkdwn decoder) and, with BENCH_BODY=1, `{"body", "sender"}`.
 * The machine is shared with other engineers' work, so only the ratio of the same run means much;
 * the rounds alternate which side goes first, and each round's own ratio (two runs seconds apart)
 * is printed with their median, which a load that swings between rounds moves least.
 *
 * BENCH_SIDE_BY_SIDE=1 runs both at once instead (see sideBySide).
 *
 *   pnpm --filter @ferry/bench exec node --import tsx webhooks/text-posts.ts
 */
const BEFORE_REF = process.env.BENCH_BEFORE_REF ?? 'main';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 6) * 1000;
const WARM_MS = 1_500;
const KEYS = 20;
const FIELD = process.env.BENCH_BODY === '1' ? 'body' : 'text';

const bodies = Array.from({ length: 256 }, (_, i) =>
  JSON.stringify(
    FIELD === 'text'
      ? { text: `Deploy #${i} finished on production in 42 s`, username: 'CI' }
      : { body: `Deploy #${i} finished on production in 42 s`, sender: 'CI' },
  ),
);

async function load(port: number, keys: string[], durationMs: number): Promise<number> {
  let accepted = 0;
  const result = await closedLoop({
    connections: CONNECTIONS,
    durationMs,
    send: (agent, n) =>
      postJson(agent, port, `/wh/in/${keys[n % keys.length]!}`, bodies[n % bodies.length]!),
    isSuccess: (answer) => {
      if (answer.status !== 201) return false;
      accepted += 1;
      return true;
    },
  });
  if (result.failures.size) {
    throw new Error(`failed answers: ${JSON.stringify([...result.failures.entries()])}`);
  }
  return accepted / ((result.lastAnsweredAt - result.firstSentAt) / 1000);
}

async function measure(ctx: TestContext, entry: string, keys: string[], port: number) {
  const child: ChildProcess = startService(entry, {
    ...ctx.env,
    PORT: String(port),
    WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
  });
  try {
    await waitHealthy(child, port);
    await load(port, keys, WARM_MS);
    return await load(port, keys, DURATION_MS);
  } finally {
    await stopChild(child);
  }
}

/**
 * BENCH_SIDE_BY_SIDE=1: both processes up at once, loaded at the same moments (CONNECTIONS each),
 * so whatever else the machine runs weighs on both alike; each round's ratio is of two loads that
 * shared every second. On a busy shared machine this says more than alternating runs.
 */
async function sideBySide(
  ctx: TestContext,
  variants: { before: string; after: string },
  keys: string[],
): Promise<void> {
  const port = basePort();
  const env = { ...ctx.env, WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' };
  const before = startService(variants.before, { ...env, PORT: String(port) });
  const after = startService(variants.after, { ...env, PORT: String(port + 1) });
  try {
    await Promise.all([waitHealthy(before, port), waitHealthy(after, port + 1)]);
    await Promise.all([load(port, keys, WARM_MS), load(port + 1, keys, WARM_MS)]);
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [b, a] = await Promise.all([
        load(port, keys, DURATION_MS),
        load(port + 1, keys, DURATION_MS),
      ]);
      ratios.push(a / b);
      console.log(`round ${round + 1}: before ${b.toFixed(0)}/s, after ${a.toFixed(0)}/s`);
    }
    console.log(
      [
        `side by side, incoming {"${FIELD}"} posts, ${CONNECTIONS} connections each, ${DURATION_MS / 1000} s x ${ROUNDS} rounds`,
        `(load ${os.loadavg()[0]!.toFixed(1)}): median after/before ${median(ratios).toFixed(2)}`,
        `(${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; must be >= 0.90)`,
      ].join(' '),
    );
  } finally {
    await Promise.all([stopChild(before), stopChild(after)]);
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const scratch = path.join(ROOT, 'services/webhooks-in', `.bench-before-${process.pid}`);
  const ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  try {
    mkdirSync(scratch, { recursive: true });
    const archive = execFileSync('git', ['archive', BEFORE_REF, 'services/webhooks-in/src'], {
      cwd: ROOT,
    });
    execFileSync('tar', ['-x', '--strip-components=2', '-C', scratch], { input: archive });

    const box = new SecretBox(ctx.config.APP_SECRET);
    const workspace = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, workspace, { role: 'admin' });
    const room = await createRoom(ctx.db, workspace, { members: [member] });
    const keys: string[] = [];
    for (let i = 0; i < KEYS; i++) {
      const { rawKey } = await createIncomingKey(ctx.db, box, {
        workspaceId: workspace.id,
        roomId: room.id,
        name: `Bench ${i}`,
        createdBy: member.id,
      });
      keys.push(rawKey);
    }

    const variants = {
      before: path.relative(ROOT, path.join(scratch, 'src/main.ts')),
      after: 'services/webhooks-in/src/main.ts',
    };
    if (process.env.BENCH_SIDE_BY_SIDE === '1') {
      await sideBySide(ctx, variants, keys);
      return;
    }
    const figures: Record<keyof typeof variants, number[]> = { before: [], after: [] };
    const port = basePort();
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: every other round runs `after` first, so a load that rises or falls through the run
      // (other people's work on the machine) does not favour one side.
      const order = round % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const);
      for (const name of order) {
        const perSecond = await measure(ctx, variants[name], keys, port);
        figures[name].push(perSecond);
        console.log(`round ${round + 1} ${name}: ${perSecond.toFixed(0)} posts/s`);
        await sleep(200);
      }
      ratios.push(figures.after.at(-1)! / figures.before.at(-1)!);
    }
    const before = median(figures.before);
    const after = median(figures.after);
    console.log(
      [
        `incoming {"${FIELD}"} posts, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s x ${ROUNDS} rounds each,`,
        `on ${os.cpus().length} cores shared with other engineers' work (load ${os.loadavg()[0]!.toFixed(1)}):`,
        `before (${BEFORE_REF}) ${before.toFixed(0)}/s, after (work tree) ${after.toFixed(0)}/s,`,
        `after/before ${(after / before).toFixed(2)} (must be >= 0.90);`,
        `median of the rounds' own after/before ${median(ratios).toFixed(2)}`,
        `(${ratios.map((ratio) => ratio.toFixed(2)).join(', ')})`,
      ].join(' '),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await ctx.close();
  }
}

await main();
