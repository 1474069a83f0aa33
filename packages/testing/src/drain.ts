import http from 'node:http';

export interface HeldAnswer {
  status: number;
  body: string;
}

export interface HeldRequest {
  /** Sends the rest of the body; resolves with the answer, rejects on a reset connection. */
  finish(): Promise<HeldAnswer>;
}

/**
 * A request the server has begun but cannot answer yet: its own connection, the headers and the
 * first half of the body sent, the rest held back until `finish()`. A drain test opens some, sends
 * SIGTERM, then finishes them: they were in flight when the signal came and must get a real
 * answer. Resolves once the connection is open and the first half written.
 */
export async function holdRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body: string },
): Promise<HeldRequest> {
  const body = Buffer.from(options.body, 'utf8');
  const half = Math.floor(body.length / 2);
  const req = http.request(url, {
    method: options.method ?? 'POST',
    agent: false,
    headers: { ...options.headers, 'content-length': String(body.length) },
  });
  const answer = new Promise<HeldAnswer>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
  });
  // Caught here and surfaced by finish(): a reset before then must not be an unhandled rejection.
  answer.catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    req.once('error', reject);
    req.write(body.subarray(0, half), () => resolve());
  });
  return {
    finish() {
      req.end(body.subarray(half));
      return answer;
    },
  };
}

export interface Load<T> {
  /** Answers so far, in arrival order. */
  answered: T[];
  /** Requests that got no answer (refused, or reset before the server read them). */
  unanswered(): number;
  /** Stops sending; resolves once every lane's last request settled. */
  stop(): Promise<T[]>;
}

/**
 * Steady load across a SIGTERM: `lanes` loops each sending one request after another with a
 * growing number, until `stop()`. A request that fails (the server stopped accepting) is counted,
 * not thrown: it was never accepted, so it promised nothing. Lanes give up after `maxMs`. `send` returns what the test will
 * check for (e.g. the ids a 202 gave) and throws only when there was no answer.
 */
export function runLoad<T>(send: (n: number) => Promise<T>, lanes = 4, maxMs = 60_000): Load<T> {
  const answered: T[] = [];
  let failed = 0;
  let next = 0;
  let stopped = false;
  // A test that fails before its stop() must not leave the lanes running (the run would never exit).
  const deadline = Date.now() + maxMs;
  const lane = async (): Promise<void> => {
    while (!stopped && Date.now() < deadline) {
      try {
        answered.push(await send(next++));
      } catch {
        failed++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  const running = Promise.all(Array.from({ length: lanes }, lane));
  return {
    answered,
    unanswered: () => failed,
    async stop() {
      stopped = true;
      await running;
      return answered;
    },
  };
}
