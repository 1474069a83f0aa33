import { expect } from 'vitest';
import { Queue } from 'bullmq';
import { startErrorWriter } from '@ferry/ingest-errors';
import { createRedisConnection } from '@ferry/queues';
import {
  createApiToken,
  holdRequest,
  runLoad,
  waitUntil,
  type ServiceProcess,
  type TestContext,
} from '@ferry/testing';
import { keyedRoom } from './keyed-room.js';

/**
 * SIGTERM to `pnpm start` (however many processes it runs) with an agent's SSE stream open while
 * error reports and incoming-webhook posts keep coming: the stream ends, requests in flight get
 * their real answers (202, 201), the process exits 0 well within onShutdown's 25 s, and
 * everything a 2xx promised is stored exactly once (reports once a fresh worker finishes the
 * queue).
 */
export async function drainsOnSigterm(ctx: TestContext, ferry: ServiceProcess): Promise<void> {
  const { workspace, room, rawKey } = await keyedRoom(ctx);
  const agentToken = await createApiToken(ctx.db, workspace, { scopes: ['platform:dispatch'] });
  const stream = await fetch(`${ferry.url}/agents/v1/stream`, {
    headers: {
      authorization: `Bearer ${agentToken.raw}`,
      'x-service-install-id': 'sigterm-all-0001',
    },
  });
  expect(stream.status).toBe(200);
  // Resolves once the server ends the stream.
  const streamEnded = stream.arrayBuffer().then(() => 'ended');

  const ingestUrl = `${ferry.url}/ingest/errors`;
  const ingestHeaders = {
    'content-type': 'application/json',
    'x-service-tenant': workspace.public_key,
  };
  const reportBody = (n: number): string =>
    JSON.stringify({ error_class: `DrainError${n % 5}`, message: `report ${n}`, source: 'node' });
  const postUrl = `${ferry.url}/wh/in/${rawKey}`;
  type Answer = { kind: 'report' | 'post'; status: number; ids: string[] };
  const send = async (n: number): Promise<Answer> => {
    if (n % 2 === 0) {
      const res = await fetch(ingestUrl, {
        method: 'POST',
        headers: ingestHeaders,
        body: reportBody(n),
      });
      const body = (await res.json()) as { ids?: string[] };
      return { kind: 'report', status: res.status, ids: body.ids ?? [] };
    }
    const res = await fetch(postUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: `post ${n}` }),
    });
    const body = (await res.json()) as { message_id?: string };
    return { kind: 'post', status: res.status, ids: body.message_id ? [body.message_id] : [] };
  };
  const load = runLoad(send, 6);
  await waitUntil(() => load.answered.length >= 60, 'the load to get going', 30_000);
  const heldReport = await holdRequest(ingestUrl, {
    headers: ingestHeaders,
    body: reportBody(-1),
  });
  const heldPost = await holdRequest(postUrl, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ body: 'held post' }),
  });
  load.answered.push(await send(1_000_000));

  const exiting = ferry.terminate();
  expect(await streamEnded).toBe('ended');
  const [reportAnswer, postAnswer] = [await heldReport.finish(), await heldPost.finish()];
  expect([reportAnswer.status, postAnswer.status]).toEqual([202, 201]);
  const exit = await exiting;
  expect(exit).toMatchObject({ code: 0, signal: null });
  expect(exit.ms).toBeLessThan(10_000);
  const answered = await load.stop();
  expect(answered.filter((a) => a.status !== (a.kind === 'report' ? 202 : 201))).toEqual([]);

  const reports = [
    ...answered.filter((a) => a.kind === 'report').flatMap((a) => a.ids),
    ...(JSON.parse(reportAnswer.body) as { ids: string[] }).ids,
  ];
  const posts = [
    ...answered.filter((a) => a.kind === 'post').flatMap((a) => a.ids),
    (JSON.parse(postAnswer.body) as { message_id: string }).message_id,
  ];

  // A fresh worker finishes what the stopped process left queued.
  const connection = createRedisConnection(ctx.config.redis, { role: 'worker' });
  const queue = new Queue('error-ingest', {
    connection: ctx.redis,
    prefix: ctx.config.REDIS_PREFIX,
  });
  const worker = startErrorWriter({
    config: ctx.config,
    db: ctx.db,
    logger: ctx.logger,
    connection,
    retentionLimit: 1_000_000,
  });
  try {
    await waitUntil(
      async () =>
        (await queue.getJobCounts('waiting', 'active')).waiting === 0 &&
        (await queue.getActiveCount()) === 0,
      'the queue to be empty',
      30_000,
    );
    await waitUntil(
      async () =>
        (
          await ctx.db
            .selectFrom('error_occurrences')
            .select('id')
            .where('workspace_id', '=', workspace.id)
            .execute()
        ).length >= reports.length,
      'every report to be written',
      30_000,
    );
  } finally {
    await worker.close();
    await queue.close();
    connection.disconnect();
  }
  const storedReports = await ctx.db
    .selectFrom('error_occurrences')
    .select('id')
    .where('workspace_id', '=', workspace.id)
    .execute();
  expect(storedReports.map((row) => row.id).sort()).toEqual([...reports].sort());
  const storedPosts = await ctx.db
    .selectFrom('messages')
    .select('id')
    .where('room_id', '=', room.id)
    .where('author_kind', '=', 'webhook')
    .execute();
  expect(storedPosts.map((row) => row.id).sort()).toEqual([...posts].sort());
}
