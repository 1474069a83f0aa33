import http from 'node:http';

/**
 * A small keep-alive load generator: `connections` loops, each with its own socket, each sending
 * its next request as soon as the previous answered, until `durationMs` has passed. Bodies are
 * built ahead of time so the generator spends its CPU on HTTP, not on JSON.
 */
export interface LoadOptions {
  port: number;
  connections: number;
  durationMs: number;
  /** Public keys of the workspaces; requests go round-robin over them. */
  publicKeys: readonly string[];
  /** Distinct error classes per workspace (each becomes a group). */
  classesPerWorkspace: number;
}

export interface LoadResult {
  requests: number;
  /** Reports the service answered 202 for (sum of `accepted`). */
  accepted: number;
  ids: string[];
  /** Non-202 answers and transport errors, by status (0 = transport error). */
  failures: Map<number, number>;
  latenciesMs: number[];
  firstSentAt: number;
  lastAnsweredAt: number;
}

export const REPORTS_PER_REQUEST = 10;

function body(variant: number, classes: number): string {
  const errors = Array.from({ length: REPORTS_PER_REQUEST }, (_, i) => {
    const cls = (variant * REPORTS_PER_REQUEST + i) % classes;
    return {
      error_class: `BenchError${cls}`,
      message: `Something failed while handling request ${variant}-${i}: value was undefined`,
      backtrace: [
        `at handler (https://app.example.test/assets/app.js:${100 + cls}:17)`,
        'at dispatch (https://app.example.test/assets/vendor.js:2231:9)',
        'at HTMLButtonElement.onclick (https://app.example.test/:1:1)',
      ],
      url: `https://app.example.test/orders/${variant}`,
      environment: 'production',
      app_version: '1.4.2',
      context: { user_agent: 'bench', attempt: i },
      occurred_at: new Date().toISOString(),
    };
  });
  return JSON.stringify({ source: 'js', errors });
}

interface Answer {
  status: number;
  text: string;
}

function post(agent: http.Agent, port: number, key: string, payload: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/ingest/errors',
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(payload),
          'X-Service-Tenant': key,
        },
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
    req.end(payload);
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const bodies = Array.from({ length: 256 }, (_, i) => body(i, options.classesPerWorkspace));
  const result: LoadResult = {
    requests: 0,
    accepted: 0,
    ids: [],
    failures: new Map(),
    latenciesMs: [],
    firstSentAt: performance.now(),
    lastAnsweredAt: 0,
  };
  const deadline = result.firstSentAt + options.durationMs;
  let next = 0;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const n = next++;
      const key = options.publicKeys[n % options.publicKeys.length]!;
      const started = performance.now();
      let status = 0;
      try {
        const answer = await post(agent, options.port, key, bodies[n % bodies.length]!);
        status = answer.status;
        if (status === 202) {
          const parsed = JSON.parse(answer.text) as { accepted: number; ids: string[] };
          result.accepted += parsed.accepted;
          for (const id of parsed.ids) result.ids.push(id);
        }
      } catch {
        status = 0;
      }
      const ended = performance.now();
      result.requests += 1;
      result.latenciesMs.push(ended - started);
      result.lastAnsweredAt = ended;
      if (status !== 202) result.failures.set(status, (result.failures.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  agent.destroy();
  return result;
}
