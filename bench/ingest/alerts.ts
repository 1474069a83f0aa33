import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { sql } from 'kysely';
import { newId } from '@ferry/core';
import { createTestContext, type TestContext } from '@ferry/testing';
import { createBenchWorkspaces, runLoad } from './load.js';
import { log, sleep } from './stats.js';

/**
 * Issue 26: what error alerts cost the ingest path. One run, one database, one pair of ingest
 * children (HTTP + worker, as compose runs them); closed-loop phases alternate alerts off (no rule)
 * and on (every workspace has a rule: a room, new group, regression and a 1,000-in-1-minute spike,
 * so every batch reads the rules and runs the spike check for every group it touched). Durable
 * reports/s = reports accepted in the phase / (first send -> last of them stored).
 *
 * BENCH_DURATION_S (default 10 per phase), BENCH_CONNECTIONS (default 64), BENCH_ROUNDS (default 2).
 */
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WORKSPACES = 1_000;
const CLASSES_PER_WORKSPACE = 20;
const PORT = 20_000 + Math.floor(Math.random() * 10_000);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function startIngest(ctx: TestContext, role: 'http' | 'worker'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'services/ingest-errors/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      ...ctx.env,
      PORT: String(PORT),
      INGEST_RATE_LIMIT_PER_MINUTE: '1000000000',
      LOG_LEVEL: 'warn',
      INGEST_ROLE: role,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function waitHealthy(child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`ingest exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('ingest did not become healthy in 20 s');
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function stored(ctx: TestContext): Promise<number> {
  const row = await sql<{ n: string | null }>`
    select sum(retained_occurrences) as n from error_workspace_stats`.execute(ctx.db);
  return Number(row.rows[0]?.n ?? 0);
}

/** A channel and an alert rule for every workspace (alerts on), or none (off). */
async function setAlerts(ctx: TestContext, workspaceIds: readonly string[], on: boolean) {
  if (!on) {
    await ctx.db.deleteFrom('error_alert_rules').execute();
    return;
  }
  const rooms = workspaceIds.map((workspaceId) => ({
    id: newId('room'),
    workspace_id: workspaceId,
    kind: 'channel' as const,
    name: `alerts-${newId('room').slice(-6)}`,
  }));
  await ctx.db.insertInto('rooms').values(rooms).execute();
  await ctx.db
    .insertInto('error_alert_rules')
    .values(
      rooms.map((room) => ({
        id: newId('errorAlertRule'),
        workspace_id: room.workspace_id,
        room_id: room.id,
        new_group: true,
        regression: true,
        frequency_count: 1_000,
        frequency_minutes: 1,
      })),
    )
    .execute();
}

async function phase(ctx: TestContext, publicKeys: readonly string[]) {
  const before = await stored(ctx);
  const load = await runLoad({
    port: PORT,
    connections: CONNECTIONS,
    durationMs: DURATION_S * 1000,
    publicKeys,
    classesPerWorkspace: CLASSES_PER_WORKSPACE,
  });
  const deadline = performance.now() + 300_000;
  while ((await stored(ctx)) - before < load.accepted) {
    if (performance.now() > deadline) throw new Error('not all accepted rows arrived');
    await sleep(50);
  }
  const lastRowAt = performance.now();
  return {
    accepted: load.accepted,
    durable: load.accepted / ((lastRowAt - load.firstSentAt) / 1000),
  };
}

async function main(): Promise<void> {
  const ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  const loadBefore = os.loadavg();
  const workspaces = await createBenchWorkspaces(ctx, WORKSPACES);
  const publicKeys = workspaces.map((w) => w.public_key);
  const http = startIngest(ctx, 'http');
  const worker = startIngest(ctx, 'worker');
  const results: { alerts: 'off' | 'on'; accepted: number; durable: number }[] = [];
  try {
    await waitHealthy(http);
    // Warm-up (JIT, pools, every group created), not counted.
    await phase(ctx, publicKeys);
    for (let round = 0; round < ROUNDS; round++) {
      for (const alerts of ['off', 'on'] as const) {
        await setAlerts(
          ctx,
          workspaces.map((w) => w.id),
          alerts === 'on',
        );
        const r = await phase(ctx, publicKeys);
        results.push({ alerts, ...r });
        log(
          `  round ${round + 1}, alerts ${alerts}: ${Math.round(r.durable)} reports/s durable (${r.accepted} reports)`,
        );
      }
    }
    const messages = await ctx.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const mean = (alerts: 'off' | 'on') => {
      const list = results.filter((r) => r.alerts === alerts);
      return list.reduce((sum, r) => sum + r.durable, 0) / list.length;
    };
    const loadAfter = os.loadavg();
    log();
    log(
      `## Error alerts on vs off (${CONNECTIONS} connections, ${DURATION_S} s phases, ${WORKSPACES} workspaces)`,
    );
    log(
      `  mean durable reports/s: off ${Math.round(mean('off'))}, on ${Math.round(mean('on'))} ` +
        `(${((mean('on') / mean('off') - 1) * 100).toFixed(1)}%)`,
    );
    log(`  alert messages posted during the run: ${messages.n} (groups existed before the phases)`);
    log(
      `  load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
    );
  } finally {
    await Promise.all([stopChild(http), stopChild(worker)]);
    await ctx.close();
  }
}

await main();
