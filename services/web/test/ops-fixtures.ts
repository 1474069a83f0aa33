import type { Redis } from 'ioredis';
import { newId, type SecretBox } from '@ferry/core';
import type { Db, Member, Workspace } from '@ferry/db';
import {
  createRedisConnection,
  createWorker,
  jobNameOf,
  type JobInput,
  type QueueName,
} from '@ferry/queues';
import {
  createApiToken,
  createErrorGroup,
  createErrorOccurrence,
  createRoom,
  waitFor,
} from '@ferry/testing';
import { createOutgoingHook, registerAgent } from '@ferry/workspace';
import type { WebHarness } from './harness.js';

/** What the Ops tests share: a job that really fails in a real queue, and an hour of activity. */

/**
 * The job once it reaches `state` (polled; BullMQ's events would need a connection of their own).
 * The state is read first and the job after it: a job read before its state could be the copy from
 * before the run (CI saw attemptsMade 0 on a job already "completed").
 */
export async function waitForState(
  web: WebHarness,
  queue: QueueName,
  jobId: string,
  state: string,
): Promise<{ attemptsMade: number; data: unknown }> {
  const jobs = web.deps.producer.queue(queue);
  let now = 'unread';
  return waitFor(
    async () => {
      now = await jobs.getJobState(jobId);
      return now === state ? await jobs.getJob(jobId) : undefined;
    },
    () => `job ${queue}/${jobId} to be ${state} (it is ${now})`,
    30_000,
    50,
  );
}

export interface FlakyQueue {
  /** Payloads the handler was given, one per run. */
  runs: unknown[];
  /** Adds a job with one try: its first run throws, so it fails for good; later runs succeed. */
  failOnce(payload: JobInput<QueueName>): Promise<string>;
  close(): Promise<void>;
}

/** A real worker (packages/queues' factory) on `queue` whose handler throws on a job's first run. */
export function flakyQueue(web: WebHarness, queue: QueueName): FlakyQueue {
  const connection: Redis = createRedisConnection(web.ctx.config.redis, { role: 'worker' });
  const runs: unknown[] = [];
  const seen = new Set<string>();
  const worker = createWorker(
    queue,
    (payload, job) => {
      runs.push(payload);
      const id = String(job.id);
      if (!seen.has(id)) {
        seen.add(id);
        return Promise.reject(new Error('Postgres is down for maintenance (connection refused)'));
      }
      return Promise.resolve();
    },
    { connection, prefix: web.ctx.config.REDIS_PREFIX, logger: web.ctx.logger },
  );
  return {
    runs,
    failOnce: async (payload) => {
      // Straight to BullMQ to give it one try (the catalog's error-ingest has 40).
      const job = await web.deps.producer
        .queue(queue)
        .add(jobNameOf(queue), payload, { attempts: 1 });
      await waitForState(web, queue, String(job.id), 'failed');
      return String(job.id);
    },
    close: async () => {
      await worker.close();
      connection.disconnect();
    },
  };
}

const MINUTE = 60_000;

/**
 * An hour of one workspace's activity: error reports accepted and stored at set minutes ago,
 * an outgoing hook's attempts (some failed, some slow), two agents of which one is online.
 */
export async function seedActivity(
  db: Db,
  box: SecretBox,
  workspace: Workspace,
  member: Member,
  options: { host?: string } = {},
) {
  const now = Date.now();
  const group = await createErrorGroup(db, workspace, { source: 'js' });
  // 3 reports accepted 5 minutes ago, stored 4 minutes ago; 2 accepted and stored 2 minutes ago.
  for (const [acceptedAgo, storedAgo, count] of [
    [5, 4, 3],
    [2, 2, 2],
  ] as const) {
    for (let i = 0; i < count; i++) {
      const occurrence = await createErrorOccurrence(db, group, {
        received_at: new Date(now - acceptedAgo * MINUTE),
      });
      await db
        .updateTable('error_occurrences')
        .set({ stored_at: new Date(now - storedAgo * MINUTE) })
        .where('id', '=', occurrence.id)
        .execute();
    }
  }
  const room = await createRoom(db, workspace, { name: 'deploys', createdBy: member });
  const { hook } = await createOutgoingHook(db, box, {
    workspaceId: workspace.id,
    roomId: room.id,
    targetUrl: `https://${options.host ?? 'hooks.example.test'}/ferry?token=sekrit`,
    createdBy: member.id,
  });
  const delivery = await db
    .insertInto('webhook_deliveries')
    .values({ id: newId('webhookDelivery'), hook_id: hook.id, event: 'test', body: '{}' })
    .returning('id')
    .executeTakeFirstOrThrow();
  // 4 attempts 3 minutes ago (one 500, one timeout), 1 attempt 10 minutes ago (slow, 2xx).
  const attempts = [
    { ago: 3, status: 200, ms: 120 },
    { ago: 3, status: 204, ms: 80 },
    { ago: 3, status: 500, ms: 300 },
    { ago: 3, status: null, ms: 10_000 },
    { ago: 10, status: 200, ms: 4_000 },
  ];
  await db
    .insertInto('webhook_attempts')
    .values(
      attempts.map((a) => ({
        id: newId('webhookAttempt'),
        delivery_id: delivery.id,
        attempted_at: new Date(now - a.ago * MINUTE),
        status_code: a.status,
        duration_ms: a.ms,
        error: a.status === null ? 'timeout' : null,
      })),
    )
    .execute();
  // Two agents registered, one online (a fresh heartbeat and an open stream).
  const token = await createApiToken(db, workspace, { scopes: ['platform:dispatch'] });
  const agent = await registerAgent(db, {
    workspaceId: workspace.id,
    installId: `install-${workspace.id}`,
    name: 'shop',
    tokenId: token.id,
  });
  await registerAgent(db, {
    workspaceId: workspace.id,
    installId: `install-${workspace.id}-2`,
    name: 'api',
    tokenId: token.id,
  });
  await db
    .updateTable('agents')
    .set({ last_heartbeat_at: new Date(), stream_seen_at: new Date() })
    .where('id', '=', agent.id)
    .execute();
  return { group, room, hook, agent };
}
