import http from 'node:http';

/**
 * The ingest bench's load generator (ingest/load.ts) shaped for POST /wh/in/<key>: `connections`
 * keep-alive loops, each sending its next post as soon as the previous one answered, until
 * `durationMs` has passed; keys round robin. Bodies are small JSON built ahead of time.
 */
export interface LoadOptions {
  port: number;
  connections: number;
  durationMs: number;
  /** Raw incoming keys; requests go round-robin over them. */
  keys: readonly string[];
}

export interface LoadResult {
  requests: number;
  /** Posts answered 201 (a message was stored). */
  accepted: number;
  /** Non-201 answers and transport errors, by status (0 = transport error). */
  failures: Map<number, number>;
  latenciesMs: number[];
  firstSentAt: number;
  lastAnsweredAt: number;
}

function post(agent: http.Agent, port: number, key: string, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/wh/in/${key}`,
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const bodies = Array.from({ length: 256 }, (_, i) =>
    JSON.stringify({ body: `Deploy #${i} finished on production in 42 s`, sender: 'CI' }),
  );
  const result: LoadResult = {
    requests: 0,
    accepted: 0,
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
      const key = options.keys[n % options.keys.length]!;
      const started = performance.now();
      let status = 0;
      try {
        status = await post(agent, options.port, key, bodies[n % bodies.length]!);
      } catch {
        status = 0;
      }
      const ended = performance.now();
      result.requests += 1;
      result.latenciesMs.push(ended - started);
      result.lastAnsweredAt = ended;
      if (status === 201) result.accepted += 1;
      else result.failures.set(status, (result.failures.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  agent.destroy();
  return result;
}
