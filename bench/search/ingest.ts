import http from 'node:http';
import { ERROR_SOURCES } from '@ferry/db';
import { postJson } from '../lib/closed-loop.js';
import { workspaceBodies } from './dataset.js';

/**
 * The search bench's data, through the product: every workspace's reports (dataset.ts) posted to
 * POST /ingest/errors with the workspace's public key, workspaces interleaved, `connections` at a
 * time, from this process of its own. `node --import tsx bench/search/ingest.ts '<IngestSpec>'`
 * prints one IngestOutcome JSON line; the caller then waits until the writer has stored them.
 */
export interface IngestSpec {
  port: number;
  publicKeys: string[];
  /** Wall clock the reports' occurred_at count back from (ms since the epoch). */
  now: number;
  connections: number;
}

export interface IngestOutcome {
  requests: number;
  accepted: number;
  /** Non-202 answers by status (0: transport error). */
  failures: Record<string, number>;
  seconds: number;
}

const spec = JSON.parse(process.argv[2] ?? '') as IngestSpec;
const bodies = workspaceBodies(spec.now, ERROR_SOURCES);
const total = bodies.length * spec.publicKeys.length;
const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
const failures: Record<string, number> = {};
let next = 0;
let accepted = 0;
const started = performance.now();

async function worker(): Promise<void> {
  while (next < total) {
    const n = next++;
    const workspace = n % spec.publicKeys.length;
    const body = bodies[Math.floor(n / spec.publicKeys.length)]!;
    let status = 0;
    try {
      const answer = await postJson(agent, spec.port, '/ingest/errors', body, {
        'X-Service-Tenant': spec.publicKeys[workspace]!,
      });
      status = answer.status;
      if (status === 202) accepted += (JSON.parse(answer.text) as { accepted: number }).accepted;
    } catch {
      // A transport error counts as status 0.
    }
    if (status !== 202) failures[status] = (failures[status] ?? 0) + 1;
  }
}

await Promise.all(Array.from({ length: spec.connections }, worker));
agent.destroy();
const outcome: IngestOutcome = {
  requests: total,
  accepted,
  failures,
  seconds: (performance.now() - started) / 1000,
};
process.stdout.write(`${JSON.stringify(outcome)}\n`);
