import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface ReceiverReply {
  status: number;
  /** Text, or exact bytes (invalid UTF-8, NUL, a large answer). */
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Wait this long before answering (to provoke timeouts). */
  delayMs?: number;
}

/**
 * A real HTTP server on loopback standing in for a webhook target, wake receiver or similar.
 * It records every request and answers 200 unless told otherwise with `reply` or `replyOnce`.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly server: http.Server;
  private replies: ReceiverReply[] = [];
  private defaultReply: ReceiverReply = { status: 200, body: 'ok' };
  private waiters: { count: number; resolve: () => void }[] = [];
  url = '';

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push({
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        });
        this.waiters = this.waiters.filter((w) => {
          if (this.requests.length >= w.count) w.resolve();
          return this.requests.length < w.count;
        });
        const reply = this.replies.shift() ?? this.defaultReply;
        const send = (): void => {
          res.writeHead(reply.status, reply.headers ?? { 'content-type': 'text/plain' });
          res.end(reply.body ?? '');
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  /** Answer every following request this way (until changed). */
  reply(reply: ReceiverReply): void {
    this.defaultReply = reply;
  }

  /** Answer the next request this way, then fall back to the default. */
  replyOnce(reply: ReceiverReply): void {
    this.replies.push(reply);
  }

  /** Resolves once `count` requests in all have arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs = 30_000): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Receiver got ${this.requests.length} of ${count} requests`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
