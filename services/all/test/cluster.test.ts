import { createFerryClient } from '@ferry/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import {
  createApiToken,
  createTestContext,
  createWorkspace,
  entryCommand,
  killAll,
  startService,
  waitUntil,
  type ServiceProcess,
  type TestContext,
  sessionCookie,
} from '@ferry/testing';
import { drainsOnSigterm } from './support/drain.js';
import { keyedRoom } from './support/keyed-room.js';

/**
 * `pnpm start` with FERRY_PROCESSES=2 (a node:cluster primary and two workers on one port), as
 * its entry runs: every surface answers whichever process takes the connection, a message stored
 * through one request reaches live sockets on both processes (the Redis adapter), the Ops sampler
 * runs in exactly one process, a worker that dies is replaced (and its lease taken over), and
 * SIGTERM to the primary drains both with nothing lost. One product for the whole file.
 */

/** The JSON log lines of the primary and its workers (NODE_ENV=test: one object per line). */
function logLines(ferry: ServiceProcess): { pid: number; msg: string; duty?: string }[] {
  return ferry
    .log()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { pid: number; msg: string; duty?: string }];
      } catch {
        return []; // not a log line (or one interleaved with another process's)
      }
    });
}

const pidsLogging = (ferry: ServiceProcess, msg: string, duty?: string): number[] =>
  logLines(ferry)
    .filter((l) => l.msg === msg && (duty === undefined || l.duty === duty))
    .map((l) => l.pid);

describe('pnpm start on two processes', () => {
  let ctx: TestContext;
  let ferry: ServiceProcess;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    ctx = await createTestContext({
      INGEST_RATE_LIMIT_PER_MINUTE: '1000000',
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000',
    });
    ferry = await startService({
      command: entryCommand('services/all/src/main.ts'),
      // Log lines at info: the test reads which process did what from them.
      env: { ...ctx.env, FERRY_PROCESSES: '2', LOG_LEVEL: 'info' },
      // Both workers serving, not just the first to listen.
      readyLine: 'Ferry is up',
      timeoutMs: 90_000,
    });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    if (ferry) await killAll([ferry]);
    await ctx.close();
  });

  it('serves from two processes and runs the Ops sampler in exactly one', async () => {
    expect(new Set(pidsLogging(ferry, 'listening')).size).toBe(2);
    // Each worker logs the outcome of its first try for the lease.
    await waitUntil(
      () =>
        pidsLogging(ferry, 'once-per-deployment duty running here', 'ops-sampler').length +
          pidsLogging(ferry, 'once-per-deployment duty held elsewhere', 'ops-sampler').length ===
        2,
      "both workers' first try for the Ops sampler's lease",
      30_000,
    );
    const running = pidsLogging(ferry, 'once-per-deployment duty running here', 'ops-sampler');
    const elsewhere = pidsLogging(ferry, 'once-per-deployment duty held elsewhere', 'ops-sampler');
    expect(running).toHaveLength(1);
    expect(elsewhere).toHaveLength(1);
    expect(running[0]).not.toBe(elsewhere[0]);
    // Its first sample is taken at once by the holder: this minute (or the next) is claimed.
    const prefix = ctx.config.REDIS_PREFIX;
    await waitUntil(
      async () => (await ctx.redis.keys(`${prefix}:ops:sampled:*`)).length > 0,
      'the Ops sampler to take a sample',
    );
    expect(await ctx.redis.get(`${prefix}:lease:ops-sampler`)).toContain(`:${running[0]}:`);
  });

  it('delivers a message stored through one request to live sockets on every process', async () => {
    const { admin, room, rawKey } = await keyedRoom(ctx);
    const cookie = await sessionCookie(ferry.url, admin.user.email, admin.user.password);
    // Four connections: the primary hands connections to its workers in turn, so the sockets
    // sit on both processes (and whichever took the post, the others hear of it over Redis).
    const received: string[][] = [];
    for (let i = 0; i < 4; i++) {
      const socket = connect(ferry.url, {
        transports: ['websocket'],
        extraHeaders: { cookie },
        reconnection: false,
        forceNew: true,
      });
      sockets.push(socket);
      const messages: string[] = [];
      received.push(messages);
      socket.on('message:new', (m: { id: string }) => messages.push(m.id));
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('connect_error', reject);
      });
      const joined = (await socket.timeout(10_000).emitWithAck('room:join', {
        roomId: room.id,
      })) as { ok: boolean };
      expect(joined).toEqual({ ok: true });
    }
    const posted = await fetch(`${ferry.url}/wh/in/${rawKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'deployed' }),
    });
    expect(posted.status).toBe(201);
    const { message_id: messageId } = (await posted.json()) as { message_id: string };
    await waitUntil(
      () => received.every((ids) => ids.includes(messageId)),
      'the posted message on every socket',
      30_000,
    );
    // Long polling is refused: it would need sticky sessions node:cluster does not have.
    const polling = await fetch(`${ferry.url}/socket.io/?EIO=4&transport=polling`, {
      headers: { cookie },
    });
    expect(polling.status).toBe(400);
  });

  it('answers the agents stream, error reports, incoming webhooks and the dispatch API', async () => {
    const workspace = await createWorkspace(ctx.db);
    const agentToken = await createApiToken(ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const stream = await fetch(`${ferry.url}/agents/v1/stream`, {
      headers: {
        authorization: `Bearer ${agentToken.raw}`,
        'x-service-install-id': 'cluster-all-0001',
      },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await stream.body?.cancel();

    const reported = await fetch(`${ferry.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant': workspace.public_key },
      body: JSON.stringify({ error_class: 'TypeError', message: 'boom', source: 'node' }),
    });
    expect(reported.status).toBe(202);
    const { ids } = (await reported.json()) as { ids: string[] };
    await waitUntil(
      async () =>
        (await ctx.db
          .selectFrom('error_occurrences')
          .select('id')
          .where('id', '=', ids[0]!)
          .executeTakeFirst()) !== undefined,
      'the report to be written by a worker',
      30_000,
    );

    const readToken = await createApiToken(ctx.db, workspace, { scopes: ['tenant:read'] });
    const repos = await createFerryClient(ferry.url, readToken.raw).GET('/api/v1/repos');
    expect(repos.response.status).toBe(200);
    expect(repos.data).toEqual({ repos: [] });
  });

  it('replaces a worker that dies, and another process takes over its lease', async () => {
    const [holder] = pidsLogging(ferry, 'once-per-deployment duty running here', 'ops-sampler');
    process.kill(holder!, 'SIGKILL');
    await waitUntil(
      () => pidsLogging(ferry, 'a worker exited; starting another').length === 1,
      'the primary to report the dead worker',
    );
    await waitUntil(
      () => new Set(pidsLogging(ferry, 'listening')).size === 3,
      'a new worker to listen',
      60_000,
    );
    // The dead holder never gave the lease back: it expires (15 s) and a live process takes it.
    await waitUntil(
      () => pidsLogging(ferry, 'once-per-deployment duty running here', 'ops-sampler').length === 2,
      'another process to take the Ops sampler over',
      45_000,
    );
    const holders = pidsLogging(ferry, 'once-per-deployment duty running here', 'ops-sampler');
    expect(holders[1]).not.toBe(holder);
    expect((await fetch(`${ferry.url}/healthz`)).status).toBe(200);
  });

  it('drains both processes on SIGTERM and exits 0 with nothing lost', async () => {
    for (const socket of sockets) socket.close();
    await drainsOnSigterm(ctx, ferry);
    expect(pidsLogging(ferry, 'a worker failed to drain')).toEqual([]);
  });
});
