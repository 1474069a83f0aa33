import { AppError, createGroupCommit, newId, type GroupCommit } from '@ferry/core';
import type { BulkJob } from '@ferry/queues';
import { fingerprint } from './fingerprint.js';
import type { IngestDeps } from './deps.js';
import type { QueuedReport } from './queued.js';
import { rateLimitKey, takeReportsMany, type RateLimitTakes } from './rate-limit.js';
import { parseBatch, type StoredReport } from './report.js';

export interface AcceptInput {
  workspaceId: string;
  visitorId: string | undefined;
  body: unknown;
  receivedAt: Date;
}

export interface Accepted {
  accepted: number;
  ids: string[];
}

const rateLimited = (): AppError =>
  new AppError(
    'rate_limited',
    'This workspace sent more error reports this minute than it may; try again in a minute.',
    { headers: { 'Retry-After': '60' } },
  );

const queueUnavailable = (): AppError =>
  new AppError(
    'unavailable',
    'Error reports cannot be accepted right now (the queue is unreachable); nothing was saved, send them again shortly.',
  );

/** One request's valid reports, waiting for its group's rate-limit take and enqueue. */
interface PendingAccept {
  workspaceId: string;
  visitorId: string | undefined;
  receivedAt: Date;
  reports: StoredReport[];
}

type AcceptOutcome = { kind: 'accepted'; accepted: Accepted } | { kind: 'rate_limited' };

/** The most requests whose reports go to Redis in one round trip (10 reports each, typically). */
const GROUP_MAX = 200;
/** Groups in flight at once: Redis pipelines them on one connection, so a few overlap cheaply. */
const GROUP_CONCURRENCY = 4;

export type AcceptGroups = GroupCommit<PendingAccept, AcceptOutcome>;

/**
 * DESIGN.md's accept path, with group commit: each request validates, coerces and cuts its own
 * reports (parseBatch), then joins the requests arriving at the same time. A group takes what
 * fits of every workspace's rate limit in one script call, gives the kept reports their ids and
 * fingerprints, and enqueues one job per request with one addBulk (one pipeline). Only when that
 * resolved does any request of the group answer 202: its reports are durable in Redis and a
 * worker will write them. If the enqueue fails, every request of the group answers 503 and
 * their takes are given back, so reports that were not accepted never count against the limit.
 */
export function createAcceptGroups(deps: Omit<IngestDeps, 'accepts'>): AcceptGroups {
  return createGroupCommit<PendingAccept, AcceptOutcome>({
    maxItems: GROUP_MAX,
    concurrency: GROUP_CONCURRENCY,
    write: (pending) => acceptGroup(deps, pending),
  });
}

async function acceptGroup(
  deps: Omit<IngestDeps, 'accepts'>,
  pending: PendingAccept[],
): Promise<AcceptOutcome[]> {
  let takes: RateLimitTakes;
  try {
    takes = await takeReportsMany(
      deps.redis,
      pending.map((request) => ({
        key: rateLimitKey(deps.config.REDIS_PREFIX, request.workspaceId, request.receivedAt),
        wanted: request.reports.length,
      })),
      deps.settings.INGEST_RATE_LIMIT_PER_MINUTE,
    );
  } catch (error) {
    deps.logger.warn({ err: error }, 'rate limit check failed: redis unreachable');
    throw queueUnavailable();
  }

  const jobs: BulkJob<'error-ingest'>[] = [];
  const outcomes = pending.map((request, index): AcceptOutcome => {
    const taken = takes.taken[index] ?? 0;
    if (taken === 0) return { kind: 'rate_limited' };
    const kept: QueuedReport[] = request.reports.slice(0, taken).map((report) => ({
      ...report,
      id: newId('errorOccurrence'),
      fingerprint: fingerprint(report),
    }));
    jobs.push({
      queue: 'error-ingest',
      payload: {
        workspaceId: request.workspaceId,
        visitorId: request.visitorId ?? null,
        receivedAt: request.receivedAt.toISOString(),
        reports: kept,
      },
    });
    return {
      kind: 'accepted',
      accepted: { accepted: kept.length, ids: kept.map((report) => report.id) },
    };
  });
  if (jobs.length === 0) return outcomes;

  try {
    await deps.producer.addBulk(jobs);
  } catch (error) {
    deps.logger.warn({ err: error, jobs: jobs.length }, 'error-ingest enqueue failed');
    // Not accepted, so not counted: the clients will send them again.
    await takes.refund().catch(() => undefined);
    throw queueUnavailable();
  }
  return outcomes;
}

/** One request's reports: parsed here, then taken and enqueued with its group. */
export async function acceptReports(deps: IngestDeps, input: AcceptInput): Promise<Accepted> {
  const { reports } = parseBatch(input.body, input.receivedAt);
  // Nothing valid: nothing to count against the limit and nothing to write.
  if (reports.length === 0) return { accepted: 0, ids: [] };
  const outcome = await deps.accepts.submit({
    workspaceId: input.workspaceId,
    visitorId: input.visitorId,
    receivedAt: input.receivedAt,
    reports,
  });
  if (outcome.kind === 'rate_limited') throw rateLimited();
  return outcome.accepted;
}
