import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { z } from 'zod';
import {
  MANIFEST_FILE,
  readManifest,
  RELAY_AGAIN_MARGIN_MS,
  REDIS_FILE,
  RestoreRefused,
  restoreBackup,
  type Manifest,
} from '@ferry/backup';
import { MIGRATION_NAMES } from '@ferry/db';
import {
  createTestContext,
  freePort,
  Receiver,
  waitFor,
  waitUntil,
  type TestContext,
} from '@ferry/testing';
import { loadFerryConfig } from '../src/config.js';
import { startAll, type RunningFerry } from '../src/server.js';
import {
  agentCall,
  fileTicket,
  messagesPageSchema,
  postAsMember,
  readApi,
  reportErrors,
  roomPath,
  runNpm,
  seedWorkspace,
  signedIn,
  startWithoutWorkers,
  addHook,
  type Seeded,
} from './support/backup-workspace.js';

/**
 * Issue 47 part 6: `npm run backup` of a workspace full of data, `npm run restore` into an empty
 * database and an empty Redis (a redis-server of this test's own), and the app started on what was
 * restored finds everything: rows, pages, the API, and the work that was still queued in Redis (a
 * member's message not yet fanned out to its hook, error reports not yet written), which it then
 * does, delivering the queued message to the hook exactly once.
 */
describe('backup and restore', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  /** A second hook's receiver, down (503, Retry-After) until the restored app runs. */
  let down: Receiver;
  /** How many requests `down` had refused when it came up. */
  let refusedByDown = 0;
  let tmp: string;
  let redisServer: ChildProcess | undefined;
  let targetRedisUrl: string;
  let restoredDatabaseUrl: string;
  let restored: RunningFerry | undefined;
  let seeded: Seeded;
  let backupDir: string;
  /** Every table's row count in the source database when the backup was taken. */
  let sourceCounts: Record<string, number>;
  /** BullMQ's job counts of the queues holding work in the source when the backup was taken. */
  let sourceQueues: Record<string, Record<string, number>>;
  /** Outbox events the restore should relay again (sent from the margin before Redis' snapshot). */
  let relayedAgain: number;
  const QUEUED_MESSAGE = 'Queued when the backup was taken';
  const ALL_REPORTS = ['written before 1', 'written before 2', 'queued 1', 'queued 2'];

  beforeAll(async () => {
    try {
      execFileSync('redis-server', ['--version']);
    } catch {
      throw new Error('redis-server is not installed (apt-get install redis-server)');
    }
    ctx = await createTestContext({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    receiver = await new Receiver().start();
    down = await new Receiver().start();
    down.reply({ status: 503, body: 'down for maintenance', headers: { 'retry-after': '20' } });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-backup-'));
    const port = await freePort();
    // The restore's target: an empty Redis of this test's own, keeping nothing on disk.
    redisServer = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    targetRedisUrl = `redis://127.0.0.1:${port}/0`;
    await waitUntil(() => {
      try {
        return (
          execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' })
            .toString()
            .trim() === 'PONG'
        );
      } catch {
        return false;
      }
    }, `the test's own redis-server on port ${port} to answer PING`);
    const url = new URL(ctx.config.DATABASE_URL);
    url.pathname = `${url.pathname}_restored`;
    restoredDatabaseUrl = url.toString();
  });

  afterAll(async () => {
    await restored?.stop();
    await receiver?.close();
    await down?.close();
    if (restoredDatabaseUrl) {
      const admin = new URL(restoredDatabaseUrl);
      const name = admin.pathname.slice(1);
      admin.pathname = '/postgres';
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      await client.query(`drop database if exists "${name}" with (force)`);
      await client.end();
    }
    await ctx?.close();
    if (redisServer && redisServer.exitCode === null) {
      const gone = new Promise((resolve) => redisServer!.once('exit', resolve));
      redisServer.kill('SIGKILL');
      await gone;
    }
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const sourceEnv = (): Record<string, string> => ({ ...ctx.env });
  const targetEnv = (): Record<string, string> => ({
    ...ctx.env,
    DATABASE_URL: restoredDatabaseUrl,
    REDIS_URL: targetRedisUrl,
  });

  it('backs up a workspace with delivered and queued work', { timeout: 180_000 }, async () => {
    // 1. Everything running: the seed, members' messages delivered to the seed's hook, written
    //    error reports, a ticket an agent worked on.
    const appPort = await freePort();
    const appUrl = `http://127.0.0.1:${appPort}`;
    const full = await startAll(
      loadFerryConfig({
        ...sourceEnv(),
        PORT: String(appPort),
        PUBLIC_URL: appUrl,
        // Tries enough that the down hook's delivery stays owed whatever the fill's pace: each
        // failed try waits the 20 s its Retry-After asks.
        WEBHOOK_RETRY_SCHEDULE_MS: Array(15).fill(1_000).join(','),
      }),
      { quietStart: true },
    );
    try {
      seeded = await seedWorkspace(sourceEnv(), `${receiver.url}/hook`);
      // The agent registers on its first call, before the ticket is filed, so the ticket is
      // logged as its work.
      await agentCall(appUrl, seeded, '/heartbeat', {});
      const owner = await signedIn(appUrl, seeded.owner);
      await addHook(owner, roomPath(seeded), `${down.url}/hook`);
      const member = await signedIn(appUrl, seeded.member);
      await postAsMember(member, roomPath(seeded), 'Delivered before the backup 1');
      await postAsMember(member, roomPath(seeded), 'Delivered before the backup 2');
      await receiver.waitFor(2, 60_000);
      // The second hook's first try was refused: its deliveries are owed, a retry scheduled.
      await down.waitFor(1, 60_000);
      await reportErrors(appUrl, seeded, ALL_REPORTS.slice(0, 2));
      const ticketId = await fileTicket(appUrl, seeded, 'The export button is greyed out');
      const work = await waitFor(
        () =>
          ctx.db
            .selectFrom('agent_work')
            .select('id')
            .where('source', '=', `feedback:${ticketId}`)
            .executeTakeFirst(),
        `the ticket ${ticketId} to be logged as the agent's work`,
        60_000,
        50,
      );
      await agentCall(appUrl, seeded, '/events', {
        work_id: work.id,
        kind: 'progress',
        text: 'Reading app/checkout.html',
      });
      await agentCall(appUrl, seeded, '/events', {
        work_id: work.id,
        kind: 'reply',
        text: 'Fixed: the button was disabled by a stale flag.',
      });
      await agentCall(appUrl, seeded, '/ack', { work_id: work.id });
      await waitUntil(
        async () => (await countRows(ctx.config.DATABASE_URL, 'error_occurrences')) === 2,
        'the first two error reports to be written',
        60_000,
        50,
      );
    } finally {
      await full.stop();
    }

    // 2. Without webhooks-out and the error writer: a member's message whose fan-out job and a
    //    report request whose ingest job stay queued in Redis, nothing in Postgres yet.
    const partial = await startWithoutWorkers(loadFerryConfig({ ...sourceEnv(), PORT: '0' }));
    try {
      const member = await signedIn(partial.url, seeded.member);
      await postAsMember(member, roomPath(seeded), QUEUED_MESSAGE);
      await reportErrors(partial.url, seeded, ALL_REPORTS.slice(2));
      await waitUntil(
        async () => (await unsentOutbox(ctx.config.DATABASE_URL)) === 0,
        'the outbox relay to hand the queued message to Redis',
        60_000,
        50,
      );
    } finally {
      await partial.stop();
    }
    sourceQueues = await queueCounts(ctx.config.REDIS_URL, ctx.config.REDIS_PREFIX);
    expect(sourceQueues['webhook-delivery']).toMatchObject({ waiting: 1 });
    expect(sourceQueues['error-ingest']).toMatchObject({ waiting: 1 });
    sourceCounts = await tableCounts(ctx.config.DATABASE_URL);
    expect(receiver.requests).toHaveLength(2);

    const backup = await runNpm(['backup', '--', '--out', tmp], sourceEnv());
    expect(backup.code, backup.stderr).toBe(0);
    backupDir = backup.stdout.trim();
    expect(path.dirname(backupDir)).toBe(tmp);
    const manifest: Manifest = await readManifest(backupDir);
    expect(manifest.migrations.latest).toBe(MIGRATION_NAMES.at(-1));
    expect(manifest.migrations.applied).toEqual(MIGRATION_NAMES);
    expect(manifest.redis.prefix).toBe(ctx.config.REDIS_PREFIX);
    expect(manifest.redis.keys).toBeGreaterThan(0);
    expect(manifest.postgres.server_version).toMatch(/^\d+/);
    expect(manifest.postgres.pg_dump).toMatch(/^pg_dump \(PostgreSQL\) \d+/);
    expect(manifest.redis.server_version).toMatch(/^\d+\.\d+/);
    relayedAgain = await countRows(
      ctx.config.DATABASE_URL,
      'outbox',
      `sent_at >= '${manifest.redis.taken_after}'::timestamptz - interval '${RELAY_AGAIN_MARGIN_MS} milliseconds'`,
    );
  });

  it('refuses a damaged backup, one newer than the code, and targets that hold data', async () => {
    const copy = (name: string): string => {
      const dir = path.join(tmp, name);
      fs.cpSync(backupDir, dir, { recursive: true });
      return dir;
    };
    const newer = copy('newer');
    const manifest = JSON.parse(
      fs.readFileSync(path.join(newer, MANIFEST_FILE), 'utf8'),
    ) as Manifest;
    manifest.migrations.applied.push('2099_01_01_0001_from_the_future');
    fs.writeFileSync(path.join(newer, MANIFEST_FILE), JSON.stringify(manifest));
    await expect(restoreBackup(ctx.config, newer)).rejects.toThrow(
      /newer migration level than this code \(2099_01_01_0001_from_the_future unknown here\)/,
    );

    const damaged = copy('damaged');
    fs.appendFileSync(path.join(damaged, REDIS_FILE), '\n');
    await expect(restoreBackup(ctx.config, damaged)).rejects.toThrow(/the backup is damaged/);

    // The source itself: both stores hold data, so nothing is touched without --force.
    const refusal = restoreBackup(ctx.config, backupDir);
    await expect(refusal).rejects.toBeInstanceOf(RestoreRefused);
    await expect(refusal).rejects.toThrow(
      /database \S+ has \d+ tables, views or sequences; Redis has keys starting with/,
    );
    expect(await tableCounts(ctx.config.DATABASE_URL)).toEqual(sourceCounts);
  });

  it(
    'restores into an empty database and an empty Redis: every row and queued job',
    { timeout: 120_000 },
    async () => {
      const restore = await runNpm(['restore', '--', backupDir], targetEnv());
      expect(restore.code, restore.stderr).toBe(0);
      // Events sent from shortly before Redis' snapshot are relayed again (the queued message's
      // among them: it was relayed seconds before); their jobs are in the restored Redis already,
      // so nothing is done twice (checked once the app runs, below).
      expect(relayedAgain).toBeGreaterThan(0);
      expect(restore.stderr).toContain(
        `Outbox: ${relayedAgain} events sent around Redis' snapshot will be relayed again.`,
      );
      expect(await tableCounts(restoredDatabaseUrl)).toEqual(sourceCounts);
      expect(await queueCounts(targetRedisUrl, ctx.config.REDIS_PREFIX)).toEqual(sourceQueues);

      // Once it holds data, a second restore is refused (exit 3) unless --force.
      const again = await runNpm(['restore', '--', backupDir], targetEnv());
      expect(again.code).toBe(3);
      expect(again.stderr).toMatch(/Refused: The restore targets are not empty/);
      await restoreBackup(
        { ...ctx.config, DATABASE_URL: restoredDatabaseUrl, REDIS_URL: targetRedisUrl },
        backupDir,
        { force: true },
      );
      expect(await tableCounts(restoredDatabaseUrl)).toEqual(sourceCounts);
      expect(await queueCounts(targetRedisUrl, ctx.config.REDIS_PREFIX)).toEqual(sourceQueues);
    },
  );

  it(
    'serves what was restored and does the queued work, the delivery exactly once',
    { timeout: 180_000 },
    async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      // The receiver that was down answers from now on: before the restored app starts, whose
      // first sweep or fan-out may try the owed deliveries at once.
      refusedByDown = down.requests.length;
      down.reply({ status: 200, body: 'back' });
      restored = await startAll(
        loadFerryConfig({ ...targetEnv(), PORT: String(port), PUBLIC_URL: url }),
        { quietStart: true },
      );
      const bodiesSent = () => receiver.requests.map((r) => messageBodyOf(r.body));
      const bodiesTakenByDown = () =>
        down.requests.slice(refusedByDown).map((r) => messageBodyOf(r.body));

      // The message queued in Redis goes out once its fan-out job runs on the restored stores.
      await receiver.waitFor(3, 60_000);
      expect(bodiesSent()).toEqual([
        'Delivered before the backup 1',
        'Delivered before the backup 2',
        QUEUED_MESSAGE,
      ]);
      // Queued reports are written.
      await waitUntil(
        async () => (await countRows(restoredDatabaseUrl, 'error_occurrences')) === 4,
        'the two queued error reports to be written from the restored Redis',
        60_000,
        50,
      );

      // The API reads what the source held.
      const room = `/api/v1/rooms/${seeded.room.id}/messages?limit=200`;
      const page = await readApi(url, seeded, room, messagesPageSchema);
      expect(page.messages.map((m) => m.body)).toEqual(
        expect.arrayContaining([
          QUEUED_MESSAGE,
          'Delivered before the backup 1',
          'Delivered before the backup 2',
        ]),
      );
      const tickets = await readApi(
        url,
        seeded,
        '/api/v1/feedback',
        z.object({ feedback: z.array(z.object({ id: z.string(), note: z.string() })) }),
      );
      expect(tickets.feedback.map((t) => t.note)).toEqual(['The export button is greyed out']);
      const errors = await readApi(
        url,
        seeded,
        '/api/v1/errors',
        z.object({ total_groups: z.number(), total_occurrences: z.number() }),
      );
      expect(errors).toMatchObject({ total_groups: 1, total_occurrences: 4 });

      // Pages: the member signs in with the restored password and sees the room and the agent's
      // reply in the ticket's conversation.
      const member = await signedIn(url, seeded.member);
      const roomPage = await member.get(roomPath(seeded));
      expect(roomPage.status).toBe(200);
      expect(roomPage.text).toContain(QUEUED_MESSAGE);
      const owner = await signedIn(url, seeded.owner);
      const ticketList = await owner.get(
        `/w/${seeded.workspace.id}/${seeded.workspace.slug}/feedback`,
      );
      expect(ticketList.text).toContain('The export button is greyed out');
      const agentReply = await countRows(
        restoredDatabaseUrl,
        'messages',
        `author_kind = 'agent' and body like 'Fixed: the button was disabled%'`,
      );
      expect(agentReply).toBe(1);

      // Exactly once: a message posted now is delivered after the queued one (a hook's deliveries
      // go in order), and by then nothing was sent twice.
      await postAsMember(member, roomPath(seeded), 'Posted after the restore');
      await receiver.waitFor(4, 60_000);
      // The hook that was down: what Postgres owed it (the first try's retry) and what Redis held
      // queued, each taken once, in order, once its retry came due on the restored app.
      const allFour = [
        'Delivered before the backup 1',
        'Delivered before the backup 2',
        QUEUED_MESSAGE,
        'Posted after the restore',
      ];
      await waitUntil(
        () => bodiesTakenByDown().length >= allFour.length,
        () =>
          `the hook that was down to take 4 deliveries (took: ${bodiesTakenByDown().join(' | ')})`,
        90_000,
        50,
      );
      expect(bodiesTakenByDown()).toEqual(allFour);
      expect(await countRows(restoredDatabaseUrl, 'webhook_deliveries')).toBe(8);
      expect(
        await countRows(restoredDatabaseUrl, 'webhook_deliveries', `status <> 'succeeded'`),
      ).toBe(0);
      expect(bodiesSent()).toEqual(allFour);
      // Re-relayed events did no work twice.
      expect(await countRows(restoredDatabaseUrl, 'agent_work')).toBe(sourceCounts.agent_work);
    },
  );
});

/** The message body of an outgoing `message_created` delivery (SPEC.md's payload). */
function messageBodyOf(raw: string): string {
  return z.object({ message: z.object({ body: z.string() }) }).parse(JSON.parse(raw)).message.body;
}

async function withClient<T>(databaseUrl: string, use: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function countRows(databaseUrl: string, table: string, where = 'true'): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ n: number }>(
      `select count(*)::int as n from ${table} where ${where}`,
    );
    return result.rows[0]!.n;
  });
}

async function unsentOutbox(databaseUrl: string): Promise<number> {
  return countRows(databaseUrl, 'outbox', 'sent_at is null');
}

/** Every table of the public schema with its row count. */
async function tableCounts(databaseUrl: string): Promise<Record<string, number>> {
  const tables = await withClient(databaseUrl, async (client) =>
    (
      await client.query<{ name: string }>(
        `select tablename as name from pg_tables where schemaname = 'public' order by 1`,
      )
    ).rows.map((row) => row.name),
  );
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = await countRows(databaseUrl, `"${table}"`);
  return counts;
}

/** BullMQ's counts of the queues holding work (waiting, delayed, completed, failed…). */
async function queueCounts(
  redisUrl: string,
  prefix: string,
): Promise<Record<string, Record<string, number>>> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  try {
    const counts: Record<string, Record<string, number>> = {};
    for (const name of ['webhook-delivery', 'error-ingest', 'agent-work', 'agent-wake']) {
      const queue = new Queue(name, { connection, prefix });
      counts[name] = await queue.getJobCounts();
      await queue.close();
    }
    return counts;
  } finally {
    connection.disconnect();
  }
}
