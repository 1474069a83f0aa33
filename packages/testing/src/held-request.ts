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
