import { closedLoop, postJson, type Answer } from '../lib/closed-loop.js';
import { openLoop } from '../lib/open-loop.js';
import { reportBody } from '../ingest/load.js';
import { summarize } from '../ingest/stats.js';
import type { LoadOutcome, LoadSpec } from './spec.js';

/**
 * bench/start's load generator, one run per process: `node --import tsx bench/start/load.ts
 * '<LoadSpec JSON>'` prints one LoadOutcome JSON line. Bodies are built ahead of time so the
 * generator spends its CPU on HTTP; ingest bodies are bench/ingest's batches of 10 reports.
 */
const spec = JSON.parse(process.argv[2] ?? '') as LoadSpec;
const wall = (at: number): number => performance.timeOrigin + at;

function sender(): (agent: Parameters<typeof postJson>[0], n: number) => Promise<Answer> {
  if (spec.surface === 'ingest') {
    const bodies = Array.from({ length: 256 }, (_, i) => reportBody(i, spec.classes));
    return (agent, n) =>
      postJson(agent, spec.port, '/ingest/errors', bodies[n % bodies.length]!, {
        'X-Service-Tenant': spec.keys[n % spec.keys.length]!,
      });
  }
  const bodies = Array.from({ length: 256 }, (_, i) =>
    JSON.stringify({ body: `Deploy #${i} finished on production in 42 s`, sender: 'CI' }),
  );
  return (agent, n) =>
    postJson(
      agent,
      spec.port,
      `/wh/in/${spec.keys[n % spec.keys.length]!}`,
      bodies[n % bodies.length]!,
    );
}

let units = 0;
let ok = 0;
const isSuccess = (answer: Answer): boolean => {
  if (spec.surface === 'incoming') {
    if (answer.status !== 201) return false;
    units += 1;
  } else {
    if (answer.status !== 202) return false;
    units += (JSON.parse(answer.text) as { accepted: number }).accepted;
  }
  ok += 1;
  return true;
};

const cpuBefore = process.cpuUsage();
const send = sender();
let outcome: LoadOutcome;
if (spec.mode === 'open') {
  const run = await openLoop({ rate: spec.rate, durationMs: spec.durationMs, send, isSuccess });
  outcome = {
    requests: run.offered,
    ok,
    units,
    failures: Object.fromEntries(run.failures),
    latency: summarize(run.latenciesMs),
    sentRate: run.sentRate,
    sendLagP99Ms: run.sendLagP99Ms,
    firstAt: wall(run.firstDueAt),
    lastAnsweredAt: wall(run.lastAnsweredAt),
    cpuMs: 0,
  };
} else {
  const run = await closedLoop({
    connections: spec.connections,
    durationMs: spec.durationMs,
    send,
    isSuccess,
  });
  outcome = {
    requests: run.requests,
    ok,
    units,
    failures: Object.fromEntries(run.failures),
    // The closed loop records every answer's latency; failures are rare and counted apart.
    latency: summarize(run.latenciesMs),
    firstAt: wall(run.firstSentAt),
    lastAnsweredAt: wall(run.lastAnsweredAt),
    cpuMs: 0,
  };
}
const cpu = process.cpuUsage(cpuBefore);
outcome.cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(`${JSON.stringify(outcome)}\n`);
