import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import type { TestContext } from '@ferry/testing';
import { ROOT, sleep, stopChild, waitHealthy } from '../lib/children.js';

/**
 * `pnpm start` as a user runs it, on a fresh database and Redis prefix: the `start` script's own
 * command (`node infra/bootstrap.mjs start`, which checks the install and the stores, then runs
 * `services/all/src/main.ts`'s bundle), with the product's defaults except what a benchmark must change:
 * the port, and the per-workspace ingest and per-key webhook rate limits (a storm from one key is
 * the point of the hot-key cases). Workspaces come from `pnpm --silent seed --json --count N`.
 */
const PATH = `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`;
const run = promisify(execFile);

/**
 * Set by the bench for the bench: the two rate limits, far above any offered rate; outgoing hooks
 * may target this machine (the outgoing phase's receiver listens on 127.0.0.1).
 */
export const BENCH_OVERRIDES = {
  INGEST_RATE_LIMIT_PER_MINUTE: '1000000000',
  WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000000',
  ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
};

/** How many processes `pnpm start` runs: passed through as given (unset: the product's default). */
export const PROCESS_SETTINGS = ['FERRY_PROCESSES', 'WEB_CONCURRENCY'] as const;

export interface Ferry {
  child: ChildProcess;
  port: number;
  /** Where the app's stdout and stderr go (its info log, as a user's terminal would show). */
  logFile: string;
}

/** The fresh context's connection settings, minus what the test harness sets for tests only. */
function ferryEnv(ctx: TestContext, port: number): Record<string, string> {
  const env: Record<string, string> = {
    PATH,
    HOME: process.env.HOME ?? os.homedir(),
    DATABASE_URL: ctx.env.DATABASE_URL!,
    REDIS_URL: ctx.env.REDIS_URL!,
    REDIS_PREFIX: ctx.env.REDIS_PREFIX!,
    APP_SECRET: ctx.env.APP_SECRET!,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...BENCH_OVERRIDES,
  };
  // Node's own flags for the app (a V8 tuning under test), passed on as NODE_OPTIONS.
  if (process.env.BENCH_NODE_OPTIONS) env.NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS;
  for (const name of PROCESS_SETTINGS) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  // As the other benches' children: every node process of `pnpm start` writes a CPU profile there
  // (that run's figures are slower and not for RESULTS.md).
  // (NODE_OPTIONS refuses --cpu-prof: a preload starts the inspector's profiler instead.)
  if (process.env.BENCH_CPU_PROF) {
    env.BENCH_CPU_PROF = process.env.BENCH_CPU_PROF;
    env.NODE_OPTIONS = `--import ${pathToFileURL(path.join(ROOT, 'bench/lib/cpu-profile.mjs')).href}`;
  }
  return env;
}

/** `env`: settings over the context's (bench/start/pgbouncer.ts: DATABASE_URL to the pooler). */
export async function startFerry(
  ctx: TestContext,
  port: number,
  env: Record<string, string> = {},
): Promise<Ferry> {
  const logFile = path.join(os.tmpdir(), `ferry-bench-start-${port}.log`);
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, ['infra/bootstrap.mjs', 'start'], {
    cwd: ROOT,
    env: { ...ferryEnv(ctx, port), ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  // Migrations and tsx's first compile on a loaded machine: give it two minutes.
  await waitHealthy(child, port, 120_000);
  return { child, port, logFile };
}

export const stopFerry = (ferry: Ferry): Promise<void> => stopChild(ferry.child);

/** The part of `pnpm --silent seed --json`'s output the bench uses (README: Seed output). */
export interface Seeded {
  workspace: { id: string; slug: string; public_key: string };
  member: { email: string; password: string };
  tokens: { tenant_write: string; tenant_read: string };
  room: { id: string };
  incoming_webhook: { key: string };
}

/** `extraArgs`: more of seed's flags (the outgoing phase's `--outgoing-url`). */
export async function seedWorkspaces(
  ctx: TestContext,
  port: number,
  count: number,
  extraArgs: readonly string[] = [],
) {
  const args = ['--silent', 'seed', '--json', '--count', String(count), ...extraArgs];
  const { stdout } = await run('pnpm', args, {
    cwd: ROOT,
    env: ferryEnv(ctx, port),
    maxBuffer: 64 * 1024 * 1024,
  });
  const seeded = stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Seeded);
  if (seeded.length !== count || seeded.some((s) => !s.workspace?.public_key)) {
    throw new Error(`pnpm seed printed ${seeded.length} workspaces, ${count} asked for`);
  }
  return seeded;
}

/**
 * Reports stored so far: the sum of the groups' counters, which the writer raises in the same
 * transaction as it inserts the occurrences. Not count(*) of error_occurrences: a workspace over
 * ERROR_RETENTION_LIMIT (20,000, kept at its default) has its oldest occurrences pruned, and the
 * hot-key workspace gets there within seconds.
 */
export async function storedReports(ctx: TestContext): Promise<number> {
  const row = await sql<{ n: string | null }>`
    select sum(occurrence_count) as n from error_groups`.execute(ctx.db);
  return Number(row.rows[0]?.n ?? 0);
}

/** Until `target` reports are stored; when the last of them was (wall clock ms), or undefined. */
export async function storedBy(
  ctx: TestContext,
  target: number,
  timeoutMs: number,
): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  while ((await storedReports(ctx)) < target) {
    if (Date.now() > deadline) return undefined;
    await sleep(25);
  }
  return performance.timeOrigin + performance.now();
}

export async function webhookMessages(ctx: TestContext): Promise<number> {
  const row = await sql<{ n: string }>`
    select count(*) as n from messages where author_kind = 'webhook'`.execute(ctx.db);
  return Number(row.rows[0]?.n ?? 0);
}

/**
 * Until the outbox is relayed: a burst of posts leaves work behind it (relay, live updates) that
 * would otherwise land in the next phase's figures. False if it did not drain in time.
 */
export async function outboxDrained(ctx: TestContext, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await sql<{ n: string }>`
      select count(*) as n from outbox where sent_at is null`.execute(ctx.db);
    if (Number(row.rows[0]?.n ?? 0) === 0) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}
