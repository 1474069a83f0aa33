import http from 'node:http';

/**
 * The benches' load generator: `connections` loops over keep-alive sockets, each sending its next
 * request as soon as the previous one answered, until `durationMs` has passed. Closed-loop on
 * purpose: latency then reflects what the service sustains, not a queue in the generator.
 */
export interface Answer {
  status: number;
  text: string;
}

/** POST a prebuilt JSON body to 127.0.0.1 on the shared keep-alive agent. */
export function postJson(
  agent: http.Agent,
  port: number,
  path: string,
  payload: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(payload),
          ...headers,
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

export interface ClosedLoopResult {
  requests: number;
  /** Answers `isSuccess` refused and transport errors, by status (0 = transport error). */
  failures: Map<number, number>;
  latenciesMs: number[];
  firstSentAt: number;
  lastAnsweredAt: number;
}

export interface ClosedLoopOptions {
  connections: number;
  durationMs: number;
  /** Sends request number `n` (requests are numbered across all loops). */
  send: (agent: http.Agent, n: number) => Promise<Answer>;
  /** Counts a successful answer (and reads what it needs from it); false marks a failure. */
  isSuccess: (answer: Answer) => boolean;
}

export async function closedLoop(options: ClosedLoopOptions): Promise<ClosedLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const result: ClosedLoopResult = {
    requests: 0,
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
      const started = performance.now();
      let answer: Answer = { status: 0, text: '' };
      try {
        answer = await options.send(agent, n);
      } catch {
        // A transport error counts as status 0.
      }
      const ended = performance.now();
      result.requests += 1;
      result.latenciesMs.push(ended - started);
      result.lastAnsweredAt = ended;
      if (answer.status === 0 || !options.isSuccess(answer)) {
        result.failures.set(answer.status, (result.failures.get(answer.status) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  agent.destroy();
  return result;
}
