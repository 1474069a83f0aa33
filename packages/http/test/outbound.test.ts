import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postOutbound } from '../src/index.js';

/**
 * A receiver that drops an idle keep-alive connection just as the next request is written on it
 * (node's own server does so after 5 s idle) resets that request before answering it. That is the
 * connection's failure, not the receiver's: the POST goes again on a new connection. A reset on a
 * fresh connection is the receiver's and stays a failure. (Which connection a send took is
 * undici's to tell: `undici:client:sendHeaders`, see outbound.ts.)
 */
describe('postOutbound over pooled connections', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  });

  /** Resets (RST) the requests `reset` picks, answers the others 200; counts both. */
  async function receiver(reset: (nthOnItsConnection: number) => boolean) {
    const seen = { requests: 0, connections: 0 };
    const perSocket = new WeakMap<Socket, number>();
    const server = http.createServer((req, res) => {
      seen.requests += 1;
      const nth = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, nth);
      req.resume();
      req.on('end', () => {
        if (reset(nth)) req.socket.resetAndDestroy();
        else res.end('ok');
      });
    });
    server.on('connection', () => (seen.connections += 1));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/hook`, seen };
  }

  const post = (url: string) =>
    postOutbound(url, { 'content-type': 'application/json' }, '{"n":1}', {
      timeoutMs: 5_000,
      ssrf: { allowPrivateTargets: true },
    });

  it('sends again on a new connection when a reused one is reset before any answer', async () => {
    // Once: the first request that is the second on its connection is reset.
    let reset = false;
    const { url, seen } = await receiver((nth) => {
      if (nth !== 2 || reset) return false;
      reset = true;
      return true;
    });
    // undici's pool may dial a second connection for the next send before the first is free
    // again, so the send that meets a reused connection is the second or the third.
    let posts = 0;
    while (!reset && posts < 5) {
      expect(await post(url)).toMatchObject({ ok: true, statusCode: 200, error: null });
      posts += 1;
    }
    expect(reset).toBe(true);
    // The reset send went again, on another connection, and was answered.
    expect(seen.requests).toBe(posts + 1);
    expect(seen.connections).toBeGreaterThanOrEqual(2);
  });

  it('keeps a reset on a fresh connection as the failure it is', async () => {
    const { url, seen } = await receiver(() => true);
    const result = await post(url);
    expect(result.ok).toBe(false);
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/ECONNRESET|socket hang up/);
    expect(seen).toEqual({ requests: 1, connections: 1 });
  });

  it('sends credentials written in the URL as Basic auth, as node:http did', async () => {
    let authorization: string | undefined;
    const server = http.createServer((req, res) => {
      authorization = req.headers.authorization;
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const result = await post(`http://ada:p%40ss@127.0.0.1:${port}/hook`);
    expect(result.ok).toBe(true);
    expect(authorization).toBe(`Basic ${Buffer.from('ada:p@ss').toString('base64')}`);
  });
});
