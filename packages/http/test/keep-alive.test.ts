import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@ferry/core';
import { closeServer, KEEP_ALIVE_TIMEOUT_MS, listen } from '../src/index.js';

/**
 * A served process keeps idle connections open longer than the proxy in front of it (Caddy: 2 min)
 * and tells clients so, so it is never the side that closes a socket a request is being sent on.
 */
describe('keep-alive', () => {
  it('advertises a timeout above the proxy idle timeout, and still closes at once on shutdown', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    await listen(server, 0, createLogger({ level: 'silent' }));
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`);
    await res.text();
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(120_000);
    expect(res.headers.get('keep-alive')).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
    const started = performance.now();
    await closeServer(server);
    // The idle keep-alive connection fetch holds does not keep the server open.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
