import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '@ferry/testing';

/** One process behind the proxy, as an orchestrator's Service endpoint. */
interface Backend {
  name: string;
  port: number;
  /** The test took it out of rotation (an orchestrator does so before SIGTERM). */
  draining: boolean;
  /** Its last /readyz answered 200. */
  ready: boolean;
  /** Requests sent to it that have no answer's headers yet. */
  waiting: number;
  /** Called whenever `waiting` drops to zero. */
  onIdle: (() => void)[];
}

export interface UpgradeProxy {
  url: string;
  /** Puts a process into rotation once its /readyz answers (resolves then). */
  add(name: string, port: number): Promise<void>;
  /**
   * Takes a process out of rotation: no new request or socket goes to it. Resolves once every
   * request already sent to it has its answer's headers (open streams and sockets stay): then its
   * SIGTERM cannot meet a connection still waiting in its accept queue, which closing the listener
   * would reset. Kubernetes' preStop sleep (infra/k8s) buys the same with a fixed 5 s.
   */
  drain(name: string): Promise<void>;
  /** Requests retried on another process because one refused the connection. */
  retries(): number;
  /** Requests answered 502: a backend failed them after taking them. */
  problems: string[];
  /** Each WebSocket upgrade: when, and to which process. */
  upgrades: string[];
  close(): Promise<void>;
}

const READY_EVERY_MS = 200;

async function readyz(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, {
      signal: AbortSignal.timeout(2_000),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * A small round-robin load balancer on loopback, standing in for a Kubernetes Service or a
 * compose proxy in the rolling-upgrade test. Request bodies are read whole before they are sent
 * on, so a request a backend refused (ECONNREFUSED: no byte reached it) can go to the next one;
 * any other failure is the client's 502, which the test counts as a failed request. WebSocket
 * upgrades are piped as raw bytes. A backend leaves rotation when the test drains it or its
 * /readyz (polled) fails.
 */
export async function startUpgradeProxy(): Promise<UpgradeProxy> {
  const backends: Backend[] = [];
  let turn = 0;
  let retried = 0;
  const problems: string[] = [];
  const upgrades: string[] = [];
  let closed = false;
  // Upgraded sockets are no longer the server's connections: closed by hand at the end.
  const tunnels = new Set<net.Socket>();

  const candidates = (): Backend[] => {
    const usable = backends.filter((b) => b.ready && !b.draining);
    if (!usable.length) return [];
    const start = turn++ % usable.length;
    return [...usable.slice(start), ...usable.slice(0, start)];
  };

  const forward = (
    backend: Backend,
    req: http.IncomingMessage,
    body: Buffer,
  ): Promise<http.IncomingMessage> =>
    new Promise((resolve, reject) => {
      const out = http.request({
        host: '127.0.0.1',
        port: backend.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'content-length': String(body.length) },
        agent: false,
      });
      backend.waiting++;
      let settled = false;
      const settle = (): void => {
        if (settled) return;
        settled = true;
        if (--backend.waiting === 0) for (const idle of backend.onIdle.splice(0)) idle();
      };
      out.once('response', (answer) => {
        settle();
        resolve(answer);
      });
      out.once('error', (error) => {
        settle();
        reject(error);
      });
      out.end(body);
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        for (const backend of candidates()) {
          try {
            const answer = await forward(backend, req, body);
            res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
            answer.pipe(res);
            // A client that leaves (an SSE stream cancelled) ends the backend's side too.
            res.once('close', () => answer.destroy());
            return;
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
              retried++;
              continue;
            }
            const problem = `${backend.name}: ${(error as NodeJS.ErrnoException).code ?? ''} ${String(error)}`;
            problems.push(`${new Date().toISOString()} ${req.method} ${req.url}: ${problem}`);
            res.writeHead(502).end(`proxy: ${problem}`);
            return;
          }
        }
        res.writeHead(503).end('proxy: no backend in rotation');
      })();
    });
  });

  // socket.io's WebSocket: the upgrade request and everything after it, byte for byte.
  server.on('upgrade', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const backend = candidates()[0];
    if (!backend) {
      client.destroy();
      return;
    }
    upgrades.push(`${new Date().toISOString()} ${req.url?.slice(0, 30)} -> ${backend.name}`);
    const upstream = net.connect(backend.port, '127.0.0.1', () => {
      tunnels.add(upstream);
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => {
      tunnels.delete(upstream);
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
  });

  // Readiness, as an orchestrator polls it: a failing /readyz takes a backend out of rotation.
  const poll = async (): Promise<void> => {
    while (!closed) {
      await Promise.all(
        backends.map(async (b) => {
          b.ready = await readyz(b.port);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, READY_EVERY_MS));
    }
  };
  const polling = poll();

  // Longer than any client keeps an idle connection: a client reusing one the proxy closed at
  // that moment would see `fetch failed`, a failure of the test's proxy and not of Ferry.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async add(name, backendPort) {
      const backend: Backend = {
        name,
        port: backendPort,
        draining: false,
        ready: false,
        waiting: 0,
        onIdle: [],
      };
      backends.push(backend);
      // The proxy's own /readyz probe (above) marks it ready.
      await waitUntil(() => backend.ready, `${name}'s /readyz, as the proxy probes it`, 60_000);
    },
    async drain(name) {
      const backend = backends.find((b) => b.name === name);
      if (!backend) throw new Error(`no backend ${name}`);
      backend.draining = true;
      if (backend.waiting === 0) return;
      const idle = new Promise<void>((resolve) => backend.onIdle.push(resolve));
      const timeout = new Promise<never>((_resolve, reject) =>
        setTimeout(
          () => reject(new Error(`Timed out waiting for ${name}'s ${backend.waiting} answers`)),
          30_000,
        ).unref(),
      );
      await Promise.race([idle, timeout]);
    },
    retries: () => retried,
    problems,
    upgrades,
    async close() {
      closed = true;
      await polling;
      for (const tunnel of tunnels) tunnel.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
