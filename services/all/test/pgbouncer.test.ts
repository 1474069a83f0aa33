import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { io as connect, type Socket } from 'socket.io-client';
import { listen, NotificationsNotDelivered } from '@ferry/db';
import {
  createApiToken,
  createMember,
  createTestContext,
  createWorkspace,
  entryCommand,
  killAll,
  startPgBouncer,
  startService,
  waitFor,
  type PgBouncer,
  type ServiceProcess,
  type TestContext,
  sessionCookie,
} from '@ferry/testing';
import { revokeToken } from '@ferry/workspace';
import { openSseText, type SseText } from './support/sse-text.js';
import { keyedRoom } from './support/keyed-room.js';

/**
 * Issue 47, PgBouncer: `pnpm start` (its real entry, one process) with DATABASE_URL through a real
 * PgBouncer in transaction mode and DATABASE_DIRECT_URL to Postgres, serving every kind of client:
 * error reports, incoming webhooks shown live on an open room, agent work relayed from the outbox,
 * and a revoked token's stream cut (which only a LISTEN that hears tells it). Then the same
 * without DATABASE_DIRECT_URL: the start stops and says why.
 */

/** Runs `pnpm start`'s entry until it exits by itself; its code and everything it printed. */
function runUntilExit(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const [command, ...args] = entryCommand('services/all/src/main.ts');
  const child = spawn(command === 'node' ? process.execPath : command!, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ code, output: Buffer.concat(output).toString() })),
  );
}

/** This database's transactions as PgBouncer counted them (its admin console). */
async function pooledTransactions(bouncer: PgBouncer, database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: bouncer.adminUrl });
  await admin.connect();
  try {
    const stats = await admin.query<{ database: string; total_xact_count: string }>('SHOW STATS');
    return Number(stats.rows.find((row) => row.database === database)?.total_xact_count ?? 0);
  } finally {
    await admin.end();
  }
}

describe('pnpm start with DATABASE_URL through PgBouncer (transaction mode)', () => {
  let ctx: TestContext;
  let bouncer: PgBouncer;
  let ferry: ServiceProcess;
  let database: string;
  const sockets: Socket[] = [];
  const streams: SseText[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
    database = new URL(ctx.config.DATABASE_URL).pathname.slice(1);
    bouncer = await startPgBouncer(ctx.config.DATABASE_URL);
    ferry = await startService({
      command: entryCommand('services/all/src/main.ts'),
      env: {
        ...ctx.env,
        FERRY_PROCESSES: '1',
        DATABASE_URL: bouncer.pooledUrl(ctx.config.DATABASE_URL),
        DATABASE_DIRECT_URL: ctx.config.DATABASE_URL,
      },
      timeoutMs: 90_000,
    });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    for (const stream of streams) stream.close();
    if (ferry) await killAll([ferry]);
    await bouncer?.close();
    await ctx?.close();
  });

  const agentStream = async (token: string, installId: string): Promise<SseText> => {
    const stream = await openSseText(`${ferry.url}/agents/v1/stream`, {
      authorization: `Bearer ${token}`,
      'x-service-install-id': installId,
    });
    streams.push(stream);
    expect(stream.status).toBe(200);
    await stream.waitFor('event: hello', "the stream's hello");
    return stream;
  };

  it('writes error reports', async () => {
    const workspace = await createWorkspace(ctx.db);
    const reported = await fetch(`${ferry.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant': workspace.public_key },
      body: JSON.stringify({ error_class: 'TypeError', message: 'boom', source: 'node' }),
    });
    expect(reported.status).toBe(202);
    const { ids } = (await reported.json()) as { ids: string[] };
    await waitFor(
      () =>
        ctx.db
          .selectFrom('error_occurrences')
          .select('id')
          .where('id', '=', ids[0]!)
          .executeTakeFirst(),
      'the report written by the error writer',
      30_000,
    );
  });

  it('stores an incoming webhook post and shows it live on an open room', async () => {
    const { admin, room, rawKey } = await keyedRoom(ctx);
    const cookie = await sessionCookie(ferry.url, admin.user.email, admin.user.password);
    const socket = connect(ferry.url, {
      transports: ['websocket'],
      extraHeaders: { cookie },
      reconnection: false,
      forceNew: true,
    });
    sockets.push(socket);
    const live: string[] = [];
    socket.on('message:new', (m: { id: string }) => live.push(m.id));
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    expect(await socket.timeout(10_000).emitWithAck('room:join', { roomId: room.id })).toEqual({
      ok: true,
    });
    const posted = await fetch(`${ferry.url}/wh/in/${rawKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'deployed through the pooler' }),
    });
    expect(posted.status).toBe(201);
    const { message_id: messageId } = (await posted.json()) as { message_id: string };
    await waitFor(
      () => (live.includes(messageId) ? true : undefined),
      `message ${messageId} on the room's live socket`,
      30_000,
    );
  });

  it('hands filed feedback to a connected agent (the outbox relay)', async () => {
    const workspace = await createWorkspace(ctx.db);
    await createMember(ctx.db, workspace, { role: 'owner' });
    const agent = await createApiToken(ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const writer = await createApiToken(ctx.db, workspace, { scopes: ['tenant:write'] });
    const stream = await agentStream(agent.raw, 'pgbouncer-agent-01');
    const filed = await fetch(`${ferry.url}/api/v1/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.raw}`, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'The export button is greyed out' }),
    });
    expect(filed.status).toBe(201);
    await stream.waitFor('event: work', 'the filed ticket pushed down the agent stream');
    expect(stream.text()).toContain('The export button is greyed out');
  });

  it("cuts a revoked token's stream at once (its LISTEN on DATABASE_DIRECT_URL hears it)", async () => {
    const workspace = await createWorkspace(ctx.db);
    await createMember(ctx.db, workspace, { role: 'owner' });
    const agent = await createApiToken(ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const stream = await agentStream(agent.raw, 'pgbouncer-agent-02');
    await revokeToken(ctx.db, workspace.id, agent.id);
    // Nothing but the notification ends it: no poll re-checks an open stream's token.
    let ended = false;
    void stream.ended.then(() => (ended = true));
    await waitFor(() => (ended ? true : undefined), "the revoked token's stream to end", 30_000);
  });

  it('sent its queries through PgBouncer', async () => {
    expect(await pooledTransactions(bouncer, database)).toBeGreaterThan(10);
  });
});

describe('LISTEN through PgBouncer in transaction mode', () => {
  let ctx: TestContext;
  let bouncer: PgBouncer;
  let pooledUrl: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    bouncer = await startPgBouncer(ctx.config.DATABASE_URL);
    pooledUrl = bouncer.pooledUrl(ctx.config.DATABASE_URL);
  });
  afterAll(async () => {
    await bouncer?.close();
    await ctx?.close();
  });

  it('stops the start, in one process and in a cluster, naming DATABASE_DIRECT_URL', async () => {
    const env = { ...ctx.env, PORT: '0', DATABASE_URL: pooledUrl };
    const [single, cluster] = await Promise.all([
      runUntilExit({ ...env, FERRY_PROCESSES: '1' }),
      runUntilExit({ ...env, FERRY_PROCESSES: '2' }),
    ]);
    for (const run of [single, cluster]) {
      expect(run.code, run.output).toBe(1);
      expect(run.output).toContain('DATABASE_DIRECT_URL (unset, so DATABASE_URL): LISTEN on');
      expect(run.output).toContain('PgBouncer in transaction mode');
      expect(run.output).not.toContain('Ferry is up');
    }
  });

  it('is reported by the listener itself, not left silent', async () => {
    const errors: unknown[] = [];
    const listener = listen(
      pooledUrl,
      'ferry_outbox',
      () => undefined,
      (err) => errors.push(err),
    );
    try {
      const err = await waitFor(
        () => errors[0],
        "the listener's report that no notification arrives",
        30_000,
      );
      expect(err).toBeInstanceOf(NotificationsNotDelivered);
      expect(String(err)).toContain('Set DATABASE_DIRECT_URL to Postgres itself');
    } finally {
      await listener.close();
    }
  });
});
