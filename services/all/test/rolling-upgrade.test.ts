import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createDb, ensureDatabase, migrateToLatest, type Db } from '@ferry/db';
import {
  createTestContext,
  entryCommand,
  killAll,
  Receiver,
  startService,
  waitUntil,
  type ServiceProcess,
  type TestContext,
} from '@ferry/testing';
import {
  holdAgentStream,
  openLiveRoom,
  openLoop,
  type OpenLoop,
  type Outcome,
} from './support/upgrade/clients.js';
import {
  buildPreviousRelease,
  migrateWithRelease,
  type PreviousRelease,
} from './support/upgrade/previous-release.js';
import { startUpgradeProxy, type UpgradeProxy } from './support/upgrade/proxy.js';
import { seedUpgradeWorld, signIn, type UpgradeWorld } from './support/upgrade/seed.js';

/**
 * A rolling upgrade under load (issue 47): release N (the commit before the newest migration,
 * built from its own checkout) serves from two processes behind a round-robin proxy while error
 * reports, incoming-webhook posts, members' posts (which go out on an outgoing hook), an API
 * client's feedback tickets (each handed to the agent as work, which it reports progress on and
 * acks), the agent's heartbeats and stream, and a room page's live socket keep coming. N+1's migrations run while N
 * serves; then each N process in turn leaves rotation, gets SIGTERM, exits 0, and an N+1 process
 * takes its place. No request fails, every accepted report is stored once, every message is
 * stored, delivered once and seen live.
 */
const RATES = { report: 20, incoming: 20, member: 5, heartbeat: 2, feedback: 2 };
/** Answers to wait for between steps: each step happens under load that is really flowing. */
const ANSWERS_PER_STEP = 150;

describe('rolling upgrade from the previous release', () => {
  let release: PreviousRelease;
  let ctx: TestContext;
  let db: Db;
  let dbName: string;
  /** N's database (not the context's clone of N+1's template). */
  let databaseUrl: string;
  let proxy: UpgradeProxy;
  let receiver: Receiver;
  const processes: ServiceProcess[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    release = await buildPreviousRelease();
    ctx = await createTestContext({
      FERRY_PROCESSES: '1',
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      INGEST_RATE_LIMIT_PER_MINUTE: '1000000',
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000',
    });
    // N's database starts empty and is migrated by N itself (not cloned from N+1's template).
    dbName = `ferry_t_${randomBytes(6).toString('hex')}`;
    const url = new URL(ctx.config.DATABASE_URL);
    url.pathname = `/${dbName}`;
    databaseUrl = url.href;
    ctx.env.DATABASE_URL = databaseUrl;
    await ensureDatabase(databaseUrl);
    await migrateWithRelease(release, ctx.env);
    db = createDb(databaseUrl, { max: 3 });
    receiver = await new Receiver().start();
    proxy = await startUpgradeProxy();
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await killAll(processes);
    await proxy?.close();
    await receiver?.close();
    await db?.destroy();
    if (ctx) {
      await sql`drop database if exists ${sql.id(dbName)} with (force)`.execute(ctx.db);
      await ctx.close();
    }
    await release?.remove();
  });

  const start = async (name: string, cwd?: string): Promise<ServiceProcess> => {
    const ferry = await startService({
      command: entryCommand('services/all/src/main.ts'),
      env: { ...ctx.env, LOG_LEVEL: 'warn' },
      cwd,
      timeoutMs: 90_000,
    });
    processes.push(ferry);
    await proxy.add(name, ferry.port);
    return ferry;
  };

  it('serves every client with nothing failed, lost or sent twice', async () => {
    const world: UpgradeWorld = await seedUpgradeWorld(db, ctx.config.APP_SECRET, receiver.url);
    const n1 = await start('n-1', release.root);
    const n2 = await start('n-2', release.root);
    const url = proxy.url;
    const session = await signIn(url, world.admin.user.email, world.admin.user.password);

    const post = async (body: string): Promise<{ status: number; ids: string[] }> => {
      const res = await fetch(`${url}/wh/in/${world.incomingKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ body }),
      });
      const answer = (await res.json()) as { message_id?: string };
      return { status: res.status, ids: answer.message_id ? [answer.message_id] : [] };
    };
    const first = await post('before the load');
    expect(first.status).toBe(201);
    const live = await openLiveRoom(url, session.cookie, world.roomId, first.ids[0]!);
    cleanups.push(() => live.close());
    const agentHeaders = {
      authorization: `Bearer ${world.agentToken}`,
      'x-service-install-id': 'upgrade-agent-0001',
    };
    const stream = holdAgentStream(url, agentHeaders);
    cleanups.push(() => stream.close());

    const roomPath = `/w/${world.workspace.id}/${world.workspace.slug}/rooms/${world.roomId}`;
    const loads: Record<keyof typeof RATES, OpenLoop> = {
      report: openLoop('report', RATES.report, async (n) => {
        const res = await fetch(`${url}/ingest/errors`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-service-tenant': world.workspace.public_key,
          },
          body: JSON.stringify({
            error_class: `UpgradeError${n % 7}`,
            message: `report ${n}`,
            source: 'node',
          }),
        });
        const answer = (await res.json()) as { ids?: string[] };
        return { status: res.status, ids: answer.ids ?? [] };
      }),
      incoming: openLoop('incoming', RATES.incoming, (n) => post(`incoming ${n}`)),
      member: openLoop('member', RATES.member, async (n) => {
        const res = await fetch(`${url}${roomPath}/messages`, {
          method: 'POST',
          headers: {
            cookie: session.cookie,
            accept: 'application/json',
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ body: `member ${n}`, _csrf: session.csrf }),
        });
        const answer = (await res.json()) as { message?: { id: string } };
        return { status: res.status, ids: answer.message ? [answer.message.id] : [] };
      }),
      // An API client filing tickets: each is handed to the agent as work (the outbox relay).
      feedback: openLoop('feedback', RATES.feedback, async (n) => {
        const res = await fetch(`${url}/api/v1/feedback`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${world.writerToken}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ note: `upgrade ticket ${n}` }),
        });
        const answer = (await res.json()) as { id?: string };
        return { status: res.status, ids: answer.id ? [answer.id] : [] };
      }),
      heartbeat: openLoop('heartbeat', RATES.heartbeat, async () => {
        const res = await fetch(`${url}/agents/v1/heartbeat`, {
          method: 'POST',
          headers: { ...agentHeaders, 'content-type': 'application/json' },
          body: JSON.stringify({ activity: 'upgrading' }),
        });
        await res.arrayBuffer();
        return { status: res.status, ids: [] };
      }),
    };
    const stopLoads = async (): Promise<Outcome[]> =>
      (await Promise.all(Object.values(loads).map((load) => load.stop()))).flat();
    cleanups.push(async () => {
      await stopLoads();
    });
    const answered = (): number =>
      Object.values(loads).reduce((sum, load) => sum + load.outcomes.length, 0);
    const moreAnswers = async (what: string): Promise<void> => {
      const target = answered() + ANSWERS_PER_STEP;
      await waitUntil(
        () => answered() >= target,
        () => `${ANSWERS_PER_STEP} more answers ${what} (have ${answered()} of ${target})`,
        60_000,
      );
    };
    const started = performance.now();
    await moreAnswers('from N under load');

    // N+1's migrations while N serves.
    const { applied } = await migrateToLatest(databaseUrl);
    expect(applied).toEqual(release.newMigrations);
    await moreAnswers('from N on the migrated schema');

    // One process at a time: out of rotation, SIGTERM, exit 0, an N+1 process in its place.
    const exits = [];
    for (const [name, old] of [
      ['n-1', n1],
      ['n-2', n2],
    ] as const) {
      console.log(new Date().toISOString(), 'draining', name);
      await proxy.drain(name);
      exits.push(await old.terminate());
      console.log(new Date().toISOString(), 'exited', name);
      await start(`${name}+1`);
      console.log(new Date().toISOString(), 'started', `${name}+1`);
      await moreAnswers(`after ${name} was replaced`);
    }
    const outcomes = await stopLoads();
    const elapsedS = (performance.now() - started) / 1000;
    expect(exits.map((e) => [e.code, e.signal])).toEqual([
      [0, null],
      [0, null],
    ]);

    const expected: Record<string, number> = {
      report: 202,
      incoming: 201,
      member: 201,
      heartbeat: 200,
      feedback: 201,
    };
    const failed = outcomes.filter((o) => o.status !== expected[o.kind]);
    expect(proxy.problems).toEqual([]);
    expect(failed).toEqual([]);
    expect(stream.refused).toEqual([]);

    const idsOf = (kind: string): string[] =>
      outcomes.filter((o) => o.kind === kind).flatMap((o) => o.ids);
    const reports = idsOf('report');
    const memberPosts = idsOf('member');
    const messages = [...first.ids, ...idsOf('incoming'), ...memberPosts];

    // Every accepted report stored once (the N+1 writers finish what N queued).
    const storedReports = async (): Promise<string[]> =>
      (
        await db
          .selectFrom('error_occurrences')
          .select('id')
          .where('workspace_id', '=', world.workspace.id)
          .execute()
      ).map((row) => row.id);
    await waitUntil(
      async () => (await storedReports()).length >= reports.length,
      () => `all ${reports.length} accepted reports to be stored`,
      60_000,
    );
    expect((await storedReports()).sort()).toEqual([...reports].sort());

    const storedMessages = await db
      .selectFrom('messages')
      .select('id')
      .where('room_id', '=', world.roomId)
      .execute();
    expect(storedMessages.map((row) => row.id).sort()).toEqual([...messages].sort());

    // Every member's post delivered to the hook's receiver exactly once.
    const delivered = (): string[] =>
      receiver.requests.map((r) => (JSON.parse(r.body) as { message: { id: string } }).message.id);
    await waitUntil(
      () => new Set(delivered()).size >= memberPosts.length,
      () => `all ${memberPosts.length} member posts delivered (have ${new Set(delivered()).size})`,
      60_000,
    );
    expect([...delivered()].sort()).toEqual([...memberPosts].sort());
    const webhookIds = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(webhookIds).size).toBe(webhookIds.length);

    // Every filed ticket handed to the agent, which posted its progress and acked it.
    const tickets = idsOf('feedback');
    await waitUntil(
      () => tickets.every((id) => stream.handled.has(id)),
      () =>
        `the agent to handle all ${tickets.length} filed tickets (handled ${stream.handled.size}; ` +
        `missing ${tickets
          .filter((id) => !stream.handled.has(id))
          .slice(0, 5)
          .join(', ')})`,
      60_000,
    );
    expect(stream.refused).toEqual([]);

    // Every message seen live by the page (reconnects catch up with `after`).
    await waitUntil(
      () => messages.slice(1).every((id) => live.seen.has(id)),
      () =>
        `the live page to see all ${messages.length - 1} messages (saw ${live.seen.size}, ` +
        `missing ${messages
          .slice(1)
          .filter((id) => !live.seen.has(id))
          .slice(0, 5)
          .join(', ')}; ` +
        `socket: ${live.events.join('; ')}; upgrades: ${proxy.upgrades.join('; ')})`,
      60_000,
    );

    const longest = Math.max(...outcomes.map((o) => o.ms));
    const byKind = Object.fromEntries(
      Object.keys(expected).map((kind) => [kind, outcomes.filter((o) => o.kind === kind).length]),
    );
    // The figures bench/RESULTS.md records.
    console.log(
      `rolling upgrade ${release.commit.slice(0, 7)} -> working tree: ${outcomes.length} requests ` +
        `in ${elapsedS.toFixed(1)} s (${JSON.stringify(byKind)}), ${failed.length} failed, ` +
        `longest ${longest.toFixed(0)} ms; ${messages.length} messages seen live over ` +
        `${live.connections()} connections; ${receiver.requests.length} deliveries; agent stream ` +
        `opened ${stream.opened()} times, ${stream.handled.size} tickets handled; proxy retries ` +
        `${proxy.retries()}`,
    );
  });
});
