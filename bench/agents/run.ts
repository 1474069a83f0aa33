import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { newId } from '@ferry/core';
import {
  createApiToken,
  createMember,
  createTestContext,
  createWorkspace,
  freePort,
} from '@ferry/testing';
import { postMessage } from '@ferry/workspace';
import { rssKb } from '../ingest/procs.js';
import { log, ms, sleep, summarize, verdict } from '../ingest/stats.js';
import { cpuSampler, formatCpu } from '../webhooks/procs.js';

/**
 * Issue #9's numbers: agents holding a stream on ONE agent-gateway process (goal 5,000, RSS
 * reported), and member message -> work received latency at that load (goal p99 <= 100 ms),
 * measured open loop at a fixed offered rate, beside a same-run ceiling: the same streams on a
 * plain node process pushed through Redis pub/sub with no database and no queue.
 *
 * Env: AGENTS (5000), RATE (messages/s, 50), SECONDS (20).
 */
const AGENTS = Number(process.env.AGENTS ?? 5_000);
const RATE = Number(process.env.RATE ?? 50);
const SECONDS = Number(process.env.SECONDS ?? 20);
const repo = fileURLToPath(new URL('../..', import.meta.url));

function start(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (/ready|listening/.test(out)) resolve(child);
    });
  });
}

/** Holds N SSE streams; calls `onWork(index, data)` for every `event: work` frame. */
function openStreams(
  count: number,
  url: (i: number) => string,
  headers: (i: number) => Record<string, string>,
  onWork: (index: number, data: string) => void,
): Promise<http.ClientRequest[]> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: http.ClientRequest[] = [];
  let open = 0;
  return new Promise((resolve, reject) => {
    const next = (i: number): void => {
      if (i >= count) return;
      const req = http.get(url(i), { agent, headers: headers(i) }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream ${i}: HTTP ${res.statusCode}`));
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (frame.includes('event: work')) {
              const data = /data: (.*)/.exec(frame)?.[1];
              if (data) onWork(i, data);
            }
          }
        });
        if (++open === count) resolve(requests);
        next(i + 50);
      });
      req.on('error', reject);
      requests.push(req);
    };
    // 50 connecting at a time, so the accept queue is never the bottleneck being measured.
    for (let i = 0; i < Math.min(50, count); i++) next(i);
  });
}

async function main(): Promise<void> {
  const load = (await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ');
  log(
    `# agents bench: ${AGENTS} streams, ${RATE} messages/s for ${SECONDS} s (load average ${load.slice(0, 3).join(' ')})`,
  );
  const ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  const port = await freePort();
  const env = { ...ctx.env, PORT: String(port), LOG_LEVEL: 'warn' };
  const gateway = await start('services/agent-gateway/src/main.ts', { ...env, LOG_LEVEL: 'info' });
  const relay = await start('bench/webhooks/relay.ts', env);

  // N agents, each with its own room, inserted in bulk (registration is measured elsewhere).
  const workspace = await createWorkspace(ctx.db);
  const member = await createMember(ctx.db, workspace, { role: 'owner' });
  const token = await createApiToken(ctx.db, workspace, { scopes: ['platform:dispatch'] });
  const agents = Array.from({ length: AGENTS }, (_, i) => ({
    id: newId('agent'),
    room: newId('room'),
    install: `bench-agent-${String(i).padStart(6, '0')}`,
  }));
  for (let i = 0; i < agents.length; i += 1_000) {
    const slice = agents.slice(i, i + 1_000);
    await ctx.db
      .insertInto('rooms')
      .values(
        slice.map((a, j) => ({
          id: a.room,
          workspace_id: workspace.id,
          kind: 'agent' as const,
          name: `agent-${i + j}`,
          created_by: null,
        })),
      )
      .execute();
    await ctx.db
      .insertInto('agents')
      .values(
        slice.map((a, j) => ({
          id: a.id,
          workspace_id: workspace.id,
          install_id: a.install,
          name: `agent-${i + j}`,
          room_id: a.room,
          token_id: token.id,
        })),
      )
      .execute();
  }
  const rssBefore = rssKb(gateway.pid!) ?? 0;

  // --- the gateway ---
  const posted = new Map<string, number>();
  const latencies: number[] = [];
  const openedAt = performance.now();
  const streams = await openStreams(
    AGENTS,
    () => `http://127.0.0.1:${port}/agents/v1/stream`,
    (i) => ({ authorization: `Bearer ${token.raw}`, 'x-service-install-id': agents[i]!.install }),
    (_i, data) => {
      const id = (JSON.parse(data) as { message?: { id?: string } }).message?.id;
      const at = id ? posted.get(id) : undefined;
      if (at !== undefined) latencies.push(performance.now() - at);
    },
  );
  const openSeconds = (performance.now() - openedAt) / 1000;
  await sleep(2_000);
  const rssOpen = rssKb(gateway.pid!) ?? 0;
  log(
    `streams open: ${streams.length} in ${openSeconds.toFixed(1)} s; gateway RSS ${Math.round(rssBefore / 1024)} MB idle -> ${Math.round(rssOpen / 1024)} MB with ${AGENTS} streams`,
  );

  const cpu = cpuSampler({ gateway: gateway.pid, relay: relay.pid });
  cpu.mark();
  const total = RATE * SECONDS;
  const t0 = performance.now();
  const sends: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const due = t0 + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const target = agents[Math.floor(Math.random() * agents.length)]!;
    const at = performance.now();
    sends.push(
      postMessage(ctx.db, {
        roomId: target.room,
        workspaceId: workspace.id,
        authorKind: 'member',
        authorMemberId: member.id,
        displayName: 'Bench',
        body: `work ${n}`,
      }).then((message) => {
        posted.set(message.id, at);
      }),
    );
  }
  await Promise.all(sends);
  await sleep(3_000);
  const gatewayCpu = cpu.since();
  const measured = summarize(latencies);
  const rssEnd = rssKb(gateway.pid!) ?? 0;
  log(
    `gateway: ${measured.n}/${total} received; message -> work received p50 ${ms(measured.p50)}, p95 ${ms(measured.p95)}, p99 ${ms(measured.p99)}, max ${ms(measured.max)}`,
  );
  log(`gateway CPU: ${formatCpu(gatewayCpu)}; RSS at end ${Math.round(rssEnd / 1024)} MB`);
  for (const req of streams) req.destroy();

  // --- the ceiling: the same streams and rate, Redis pub/sub straight to a plain SSE server ---
  const ceilingPort = await freePort();
  const channel = `${ctx.config.REDIS_PREFIX}:ceiling`;
  const ceiling = await start('bench/agents/ceiling.ts', {
    PORT: String(ceilingPort),
    REDIS_URL: ctx.config.REDIS_URL,
    CHANNEL: channel,
  });
  const ceilingLatencies: number[] = [];
  const sentAt = new Map<string, number>();
  const ceilingStreams = await openStreams(
    AGENTS,
    (i) => `http://127.0.0.1:${ceilingPort}/?i=${i}`,
    () => ({}),
    (_i, data) => {
      const at = sentAt.get(data);
      if (at !== undefined) ceilingLatencies.push(performance.now() - at);
    },
  );
  await sleep(1_000);
  const rssCeiling = rssKb(ceiling.pid!) ?? 0;
  const pub = new Redis(ctx.config.REDIS_URL);
  const c0 = performance.now();
  for (let n = 0; n < total; n++) {
    const due = c0 + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const payload = JSON.stringify({ n });
    sentAt.set(payload, performance.now());
    void pub.publish(channel, `${Math.floor(Math.random() * AGENTS)} ${payload}`);
  }
  await sleep(2_000);
  const ceil = summarize(ceilingLatencies);
  log(
    `ceiling (plain SSE + Redis pub/sub, no database): ${ceil.n}/${total} received; p50 ${ms(ceil.p50)}, p95 ${ms(ceil.p95)}, p99 ${ms(ceil.p99)}; RSS ${Math.round(rssCeiling / 1024)} MB with ${AGENTS} streams`,
  );
  log(
    `goal 5,000 streams on one process: ${verdict(streams.length >= 5_000)} (${streams.length}); goal p99 <= 100 ms: ${verdict(measured.p99 <= 100)} (${ms(measured.p99)}, ceiling ${ms(ceil.p99)}, ratio ${(measured.p99 / ceil.p99).toFixed(1)}x)`,
  );

  for (const req of ceilingStreams) req.destroy();
  pub.disconnect();
  for (const child of [ceiling, relay, gateway]) child.kill('SIGTERM');
  await sleep(500);
  await ctx.close();
  process.exit(0);
}

await main();
