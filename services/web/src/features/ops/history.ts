import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { queueNames, type Producer } from '@ferry/queues';
import { HEARTBEAT_WINDOW_MS, STREAM_WINDOW_MS } from '@ferry/workspace';
import { deploymentHealth, lastHourMinutes, minuteOf, OPS_MINUTES } from './figures.js';

/**
 * The last hour of what has no history of its own: queue counts and outbox lag (deployment-wide,
 * one sorted set scored by minute) and agents online (one hash per minute, workspace -> count).
 * A web process samples once a minute; a SET NX on the minute's key (kept as long as the samples:
 * it also says "sampled, nobody online") makes it one sample per minute
 * however many web processes run. Everything expires by itself a little after the hour.
 */
const KEEP_SECONDS = 2 * 60 * 60;

const keys = (prefix: string) => ({
  deployment: `${prefix}:ops:deployment`,
  agents: (minute: number) => `${prefix}:ops:agents:${minute}`,
  claim: (minute: number) => `${prefix}:ops:sampled:${minute}`,
});

/** One minute's deployment sample as stored: per queue [waiting, active, failed, oldest age ms]. */
const deploymentSampleSchema = z.object({
  m: z.number().int(),
  q: z.record(z.string(), z.tuple([z.number(), z.number(), z.number(), z.number().nullable()])),
  o: z.number(),
});
type DeploymentSample = z.infer<typeof deploymentSampleSchema>;

export interface OpsSamplerDeps {
  db: Db;
  redis: Redis;
  producer: Producer;
  prefix: string;
  logger: Logger;
}

/** Counts agents online per workspace, the same rule as agentOnline(). */
async function agentsOnlineByWorkspace(db: Db, now: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('agents')
    .select(['workspace_id', (eb) => eb.fn.countAll<string>().as('online')])
    .where('last_heartbeat_at', '>=', new Date(now - HEARTBEAT_WINDOW_MS))
    .where('stream_seen_at', '>=', new Date(now - STREAM_WINDOW_MS))
    .groupBy('workspace_id')
    .execute();
  return new Map(rows.map((row) => [row.workspace_id, Number(row.online)]));
}

/**
 * Takes this minute's sample unless another process already did; true when this call took it.
 * The claim is taken first, so a sample that then fails leaves that minute empty (a gap in the
 * chart) rather than letting every process retry it.
 */
export async function sampleOpsMinute(deps: OpsSamplerDeps, now = Date.now()): Promise<boolean> {
  const k = keys(deps.prefix);
  const minute = minuteOf(now);
  const claimed = await deps.redis.set(k.claim(minute), '1', 'EX', KEEP_SECONDS, 'NX');
  if (claimed !== 'OK') return false;
  const [health, agents] = await Promise.all([
    deploymentHealth(deps, now),
    agentsOnlineByWorkspace(deps.db, now),
  ]);
  const sample: DeploymentSample = {
    m: minute,
    q: Object.fromEntries(
      health.queues.map((q) => [q.queue, [q.waiting, q.active, q.failed, q.oldestWaitingAgeMs]]),
    ),
    o: health.outboxLagMs,
  };
  const write = deps.redis.multi();
  write.zadd(k.deployment, minute, JSON.stringify(sample));
  write.zremrangebyscore(k.deployment, '-inf', minute - OPS_MINUTES);
  write.expire(k.deployment, KEEP_SECONDS);
  if (agents.size) {
    write.hset(k.agents(minute), Object.fromEntries(agents));
    write.expire(k.agents(minute), KEEP_SECONDS);
  }
  await write.exec();
  return true;
}

export interface OpsSampler {
  /** No more samples; resolves once the one in flight (if any) is done with Redis. */
  stop(): Promise<void>;
}

/**
 * Samples every `everyMs` (a few times a minute, so the claim lands early in each minute; all but
 * the first try of a minute cost one SET). Failures are logged and the next tick tries again.
 */
export function startOpsSampler(deps: OpsSamplerDeps, everyMs = 15_000): OpsSampler {
  // The sample in flight: a stop waits for it, so the connections it uses are not closed under
  // it (a process stopped right after starting would otherwise reject its commands).
  let inFlight: Promise<void> | undefined;
  const tick = (): void => {
    if (inFlight) return;
    inFlight = sampleOpsMinute(deps)
      .then(() => undefined)
      .catch((err: unknown) => {
        deps.logger.warn({ err }, 'ops sample failed');
      })
      .finally(() => {
        inFlight = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await inFlight;
    },
  };
}

/** Per queue, the last hour of each count (null for a minute nobody sampled). */
export interface QueueHistory {
  waiting: (number | null)[];
  active: (number | null)[];
  failed: (number | null)[];
  oldestWaitingAgeMs: (number | null)[];
}

export interface DeploymentHistory {
  queues: Record<string, QueueHistory>;
  outboxLagMs: (number | null)[];
}

export async function deploymentHistory(
  redis: Redis,
  prefix: string,
  now = Date.now(),
): Promise<DeploymentHistory> {
  const minutes = lastHourMinutes(now);
  const stored = await redis.zrangebyscore(
    keys(prefix).deployment,
    minutes[0]!,
    minutes[minutes.length - 1]!,
  );
  const byMinute = new Map<number, DeploymentSample>();
  for (const text of stored) {
    const parsed = deploymentSampleSchema.safeParse(safeJson(text));
    if (parsed.success) byMinute.set(parsed.data.m, parsed.data);
  }
  const column = (queue: string, index: 0 | 1 | 2 | 3) =>
    minutes.map((minute) => byMinute.get(minute)?.q[queue]?.[index] ?? null);
  return {
    queues: Object.fromEntries(
      queueNames.map((queue) => [
        queue,
        {
          waiting: column(queue, 0),
          active: column(queue, 1),
          failed: column(queue, 2),
          oldestWaitingAgeMs: column(queue, 3),
        },
      ]),
    ),
    outboxLagMs: minutes.map((minute) => byMinute.get(minute)?.o ?? null),
  };
}

/** A workspace's agents online per minute: 0 for a sampled minute it was absent from. */
export async function agentsOnlineHistory(
  redis: Redis,
  prefix: string,
  workspaceId: string,
  now = Date.now(),
): Promise<(number | null)[]> {
  const k = keys(prefix);
  const minutes = lastHourMinutes(now);
  const read = redis.pipeline();
  for (const minute of minutes) {
    read.exists(k.claim(minute));
    read.hget(k.agents(minute), workspaceId);
  }
  const results = (await read.exec()) ?? [];
  return minutes.map((_, i) => {
    const sampled = Number(results[i * 2]?.[1] ?? 0) === 1;
    const value = results[i * 2 + 1]?.[1];
    if (typeof value === 'string') return Number(value);
    return sampled ? 0 : null;
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
