import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { createTestContext, type TestContext } from '@ferry/testing';
import { basePort, sleep, startService, stopChild, waitHealthy } from '../lib/children.js';
import { closedLoop, postJson, type Answer } from '../lib/closed-loop.js';
import { createBenchWorkspaces, reportBody } from './load.js';
import { log, ms, perSecond, summarize } from './stats.js';

/**
 * Issue #24: Sentry envelopes beside SPEC.md's /ingest/errors, in the same run against the same
 * processes (one INGEST_ROLE=http child, one writer child). A Sentry SDK sends one event per
 * request, so the like-for-like figure is /ingest/errors with one report per request; ten per
 * request is shown for scale. Phases alternate (A, B, A, B) so a neighbour's load on a shared
 * machine hits both. Target: envelope reports/s within 1.5x of /ingest/errors (1 per request).
 *
 * BENCH_PHASE_S (5) and BENCH_CONNECTIONS (32) tune it; the whole run is under a minute.
 */
const PHASE_S = Number(process.env.BENCH_PHASE_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WORKSPACES = 100;
const CLASSES = 20;

/** An @sentry/node 11 error event as it is sent: frames, contexts, breadcrumbs, about 4 KB. */
function eventTemplate(variant: number): string {
  const frames = Array.from({ length: 12 }, (_, i) => ({
    filename:
      i < 4
        ? `/app/src/orders/handler${i}.js`
        : `/app/node_modules/express/lib/router/layer${i}.js`,
    module: i < 4 ? `orders.handler${i}` : `express.lib.router:layer${i}`,
    function: i < 4 ? `handle${i}` : `Layer.handle_request${i}`,
    lineno: 100 + ((variant + i) % CLASSES),
    colno: 17,
    in_app: i < 4,
  }));
  const event = {
    event_id: '__EVENT_ID__',
    timestamp: Date.now() / 1000,
    platform: 'node',
    level: 'error',
    server_name: 'web-1',
    release: 'shop@2.0.0',
    environment: 'production',
    sdk: { name: 'sentry.javascript.node', version: '11.12.0' },
    exception: {
      values: [
        {
          type: `BenchError${variant % CLASSES}`,
          value: `Something failed while handling request ${variant}: value was undefined`,
          mechanism: { type: 'generic', handled: true },
          stacktrace: { frames },
        },
      ],
    },
    request: { url: `https://shop.example.test/orders/${variant}`, method: 'POST' },
    tags: { plan: 'pro', region: 'eu' },
    user: { id: `u_${variant}`, ip_address: '10.0.0.1' },
    contexts: {
      app: { app_start_time: '2026-11-25T10:00:00.000Z', app_memory: 81_920_000 },
      os: { kernel_version: '6.1.0', name: 'Linux', version: '6.1.0' },
      runtime: { name: 'node', version: 'v20.20.2' },
      device: { boot_time: '2026-11-20T00:00:00.000Z', arch: 'x64', memory_size: 25_000_000_000 },
      trace: { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) },
    },
    breadcrumbs: Array.from({ length: 10 }, (_, i) => ({
      timestamp: Date.now() / 1000 - i,
      category: 'http',
      data: { method: 'GET', url: `https://api.example.test/items/${i}`, status_code: 200 },
      type: 'http',
    })),
  };
  return [
    JSON.stringify({ event_id: '__EVENT_ID__', sent_at: new Date().toISOString() }),
    JSON.stringify({ type: 'event' }),
    JSON.stringify(event),
  ].join('\n');
}

const stored = async (ctx: TestContext): Promise<number> => {
  const row = await sql<{ n: string | null }>`
    select sum(retained_occurrences) as n from error_workspace_stats`.execute(ctx.db);
  return Number(row.rows[0]?.n ?? 0);
};

interface Phase {
  name: string;
  reportsPerRequest: number;
  send: (agent: Parameters<typeof postJson>[0], n: number) => Promise<Answer>;
  ok: number;
}

async function main(): Promise<void> {
  log(`# Ferry ingest: Sentry envelope vs /ingest/errors (issue #24), ${new Date().toISOString()}`);
  log(
    `machine: ${os.cpus().length} cores, load average at start ${os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}; node ${process.version}; ${CONNECTIONS} connections, ${PHASE_S} s a phase`,
  );
  const ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  const port = basePort();
  const env = {
    ...ctx.env,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    INGEST_RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
  };
  const http = startService('services/ingest-errors/src/main.ts', {
    ...env,
    PORT: String(port),
    INGEST_ROLE: 'http',
  });
  const worker = startService('services/ingest-errors/src/main.ts', {
    ...env,
    PORT: String(port + 50),
    INGEST_ROLE: 'worker',
  });
  try {
    await waitHealthy(http, port);
    const keys = (await createBenchWorkspaces(ctx, WORKSPACES)).map((w) => w.public_key);
    const one = Array.from({ length: 256 }, (_, i) => {
      const body = JSON.parse(reportBody(i, CLASSES)) as { source: string; errors: unknown[] };
      return JSON.stringify({ source: body.source, errors: body.errors.slice(0, 1) });
    });
    const ten = Array.from({ length: 256 }, (_, i) => reportBody(i, CLASSES));
    const envelopes = Array.from({ length: 256 }, (_, i) => eventTemplate(i));
    log(
      `envelope size: ${Buffer.byteLength(envelopes[0]!)} bytes; one native report: ${one[0]!.length} bytes`,
    );
    const native =
      (bodies: string[]) =>
      (agent: Parameters<typeof postJson>[0], n: number): Promise<Answer> =>
        postJson(agent, port, '/ingest/errors', bodies[n % bodies.length]!, {
          'X-Service-Tenant': keys[n % keys.length]!,
        });
    const phases: Phase[] = [
      {
        name: '/ingest/errors, 1 report a request',
        reportsPerRequest: 1,
        send: native(one),
        ok: 202,
      },
      {
        name: 'Sentry envelope, 1 event a request',
        reportsPerRequest: 1,
        ok: 200,
        send: (agent, n) => {
          // A fresh event_id each time: copies of one id would be stored once.
          const id = randomBytes(16).toString('hex');
          return postJson(
            agent,
            port,
            `/api/1/envelope/?sentry_key=${keys[n % keys.length]!}`,
            envelopes[n % envelopes.length]!.replaceAll('__EVENT_ID__', id),
          );
        },
      },
      {
        name: '/ingest/errors, 10 reports a request',
        reportsPerRequest: 10,
        send: native(ten),
        ok: 202,
      },
    ];
    const before = await stored(ctx);
    let sent = 0;
    // Warm-up of every path (JIT, pools, the tenant cache), not counted in the rates.
    for (const phase of phases) {
      const warm = await closedLoop({
        connections: CONNECTIONS,
        durationMs: 1_500,
        send: phase.send,
        isSuccess: (answer) => answer.status === phase.ok,
      });
      const failed = [...warm.failures.values()].reduce((a, b) => a + b, 0);
      sent += (warm.requests - failed) * phase.reportsPerRequest;
    }
    const rates = new Map<string, number[]>();
    const latencies = new Map<string, number[]>();
    for (const round of [1, 2]) {
      for (const phase of round === 1 ? phases : [...phases].reverse()) {
        const loop = await closedLoop({
          connections: CONNECTIONS,
          durationMs: PHASE_S * 1000,
          send: phase.send,
          isSuccess: (answer) => answer.status === phase.ok,
        });
        const okRequests = loop.requests - [...loop.failures.values()].reduce((a, b) => a + b, 0);
        sent += okRequests * phase.reportsPerRequest;
        const perS =
          (okRequests * phase.reportsPerRequest) /
          ((loop.lastAnsweredAt - loop.firstSentAt) / 1000);
        rates.set(phase.name, [...(rates.get(phase.name) ?? []), perS]);
        latencies.set(phase.name, [...(latencies.get(phase.name) ?? []), ...loop.latenciesMs]);
        const failures = [...loop.failures].map(([s, n]) => `${s}: ${n}`).join(', ') || 'none';
        log(
          `  round ${round}, ${phase.name}: ${perSecond(perS)} reports accepted; failures ${failures}`,
        );
      }
    }
    // Everything accepted is written before the figures count as real.
    const deadline = Date.now() + 120_000;
    while ((await stored(ctx)) - before < sent && Date.now() < deadline) await sleep(100);
    log(`stored after the load: ${(await stored(ctx)) - before} of ${sent} accepted`);
    log();
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const base = mean(rates.get(phases[0]!.name)!);
    for (const phase of phases) {
      const lat = summarize(latencies.get(phase.name)!);
      const rate = mean(rates.get(phase.name)!);
      log(
        `| ${phase.name} | ${perSecond(rate)} | ${(rate / base).toFixed(2)}x | p50 ${ms(lat.p50)}, p99 ${ms(lat.p99)} |`,
      );
    }
  } finally {
    await stopChild(http);
    await stopChild(worker);
    await ctx.close();
  }
}

await main();
