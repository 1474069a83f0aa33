import http from 'node:http';
import type { Answer } from '../lib/closed-loop.js';
import { Browser } from '../lib/browser.js';
import { openLoop } from '../lib/open-loop.js';
import { summarize, type Summary } from '../ingest/stats.js';

/**
 * The search bench's page generator, one run per process: signs in as the member (when asked),
 * then GETs `path` at a fixed offered rate (open loop: latency from each request's due time) for
 * a warm-up and then the measured window. `node --import tsx bench/search/page-load.ts
 * '<PageSpec>'` prints one PageOutcome JSON line.
 */
export interface PageSpec {
  port: number;
  path: string;
  signIn?: { email: string; password: string };
  rate: number;
  warmMs: number;
  durationMs: number;
}

export interface PageOutcome {
  requests: number;
  ok: number;
  failures: Record<string, number>;
  /** Due -> the whole response read, successful requests only. */
  latency: Summary;
  sentRate: number;
  sendLagP99Ms: number;
  /** Bytes of the last page: a check that it is the list, not a sign-in page. */
  bytes: number;
  /** The generator's own CPU over the measured window, ms. */
  cpuMs: number;
}

const spec = JSON.parse(process.argv[2] ?? '') as PageSpec;

function get(agent: http.Agent, cookie: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: spec.port,
        path: spec.path,
        method: 'GET',
        agent,
        headers: { cookie },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let cookie = '';
if (spec.signIn) {
  const browser = new Browser(`http://127.0.0.1:${spec.port}`);
  await browser.signIn(spec.signIn.email, spec.signIn.password);
  cookie = browser.cookieHeader();
}
let bytes = 0;
const isSuccess = (answer: Answer): boolean => {
  bytes = answer.text.length;
  return answer.status === 200;
};
const send = (agent: http.Agent) => get(agent, cookie);
if (spec.warmMs > 0) await openLoop({ rate: spec.rate, durationMs: spec.warmMs, send, isSuccess });
const cpuBefore = process.cpuUsage();
const run = await openLoop({ rate: spec.rate, durationMs: spec.durationMs, send, isSuccess });
const cpu = process.cpuUsage(cpuBefore);
const outcome: PageOutcome = {
  requests: run.offered,
  ok: run.latenciesMs.length,
  failures: Object.fromEntries(run.failures),
  latency: summarize(run.latenciesMs),
  sentRate: run.sentRate,
  sendLagP99Ms: run.sendLagP99Ms,
  bytes,
  cpuMs: (cpu.user + cpu.system) / 1000,
};
process.stdout.write(`${JSON.stringify(outcome)}\n`);
