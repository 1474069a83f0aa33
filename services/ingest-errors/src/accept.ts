import { AppError, newId } from '@ferry/core';
import { fingerprint } from './fingerprint.js';
import type { IngestDeps } from './deps.js';
import type { QueuedReport } from './queued.js';
import { rateLimitKey, takeReports, type RateLimitTake } from './rate-limit.js';
import { parseBatch } from './report.js';

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

/**
 * DESIGN.md's accept path: validate, coerce and cut (parseBatch), give each report its id and
 * fingerprint, take what fits of the workspace's rate limit, enqueue one job, and only then say
 * "accepted": once the add resolved the reports are durable in Redis and a worker will write them.
 */
export async function acceptReports(deps: IngestDeps, input: AcceptInput): Promise<Accepted> {
  const { reports } = parseBatch(input.body, input.receivedAt);
  // Nothing valid: nothing to count against the limit and nothing to write.
  if (reports.length === 0) return { accepted: 0, ids: [] };

  let take: RateLimitTake;
  try {
    take = await takeReports(
      deps.redis,
      rateLimitKey(deps.config.REDIS_PREFIX, input.workspaceId, input.receivedAt),
      reports.length,
      deps.settings.INGEST_RATE_LIMIT_PER_MINUTE,
    );
  } catch (error) {
    deps.logger.warn({ err: error }, 'rate limit check failed: redis unreachable');
    throw queueUnavailable();
  }
  if (take.taken === 0) throw rateLimited();

  const kept: QueuedReport[] = reports.slice(0, take.taken).map((report) => ({
    ...report,
    id: newId('errorOccurrence'),
    fingerprint: fingerprint(report),
  }));
  try {
    await deps.producer.add('error-ingest', {
      workspaceId: input.workspaceId,
      visitorId: input.visitorId ?? null,
      receivedAt: input.receivedAt.toISOString(),
      reports: kept,
    });
  } catch (error) {
    deps.logger.warn({ err: error }, 'error-ingest enqueue failed');
    // Not accepted, so not counted: the client will send them again.
    await take.refund().catch(() => undefined);
    throw queueUnavailable();
  }
  return { accepted: kept.length, ids: kept.map((report) => report.id) };
}
