import { rateLimitedError } from '@ferry/http';
import { AppError, createGroupCommit, newId, type ScrubRules } from '@ferry/core';
import type { BulkJob } from '@ferry/queues';
import type { IngestDeps } from './deps.js';
import type { QueuedReport } from './queued.js';
import { rateLimitKey, takeReportsMany, type RateLimitTakes } from './rate-limit.js';
import type { StoredReport } from './report.js';
import { scrubDetail, scrubReport } from './scrub-report.js';
import { claimEventIds, eventClaimKey } from './event-ids.js';
import type {
  AcceptGroups,
  AcceptOutcome,
  Accepted,
  PendingAccept,
  ReportExtras,
} from './accept-types.js';

/** One request's reports, already decoded by its wire format's decoder (see decode/). */
export interface AcceptInput {
  workspaceId: string;
  visitorId: string | undefined;
  /** Coerced and cut (coerceReport): at most LIMITS.reportsPerRequest. */
  reports: StoredReport[];
  /**
   * Beside `reports`, by index: what a wire format knows beyond SPEC.md's fields (Sentry events:
   * what the event groups by, and its structured detail).
   */
  extras?: readonly (ReportExtras | undefined)[];
  receivedAt: Date;
  /**
   * The client's own id of the request's one event (Sentry's event_id): copies of the same event
   * get the same occurrence id, so it is stored once (event-ids.ts).
   */
  eventId?: string;
  /** Headers the wire format adds to a 429 (Sentry's X-Sentry-Rate-Limits). */
  rateLimitHeaders?: Record<string, string>;
}

/** SPEC.md: over the limit -> 429 with `Retry-After: 60` (the window is one minute). */
export const RATE_LIMIT_RETRY_SECONDS = 60;

const rateLimited = (headers: Record<string, string> | undefined): AppError =>
  rateLimitedError(
    'This workspace sent more error reports this minute than it may; try again in a minute.',
    RATE_LIMIT_RETRY_SECONDS,
    headers,
  );

const queueUnavailable = (): AppError =>
  new AppError(
    'unavailable',
    'Error reports cannot be accepted right now (the queue is unreachable); nothing was saved, send them again shortly.',
  );

const rulesUnavailable = (): AppError =>
  new AppError(
    'unavailable',
    'Error reports cannot be accepted right now (the workspace settings are unreachable); nothing was saved, send them again shortly.',
  );

/** The most requests whose reports go to Redis in one round trip (10 reports each, typically). */
const GROUP_MAX = 200;
/** Groups in flight at once: Redis pipelines them on one connection, so a few overlap cheaply. */
const GROUP_CONCURRENCY = 4;

/**
 * DESIGN.md's accept path, with group commit: each request's reports arrive validated, coerced
 * and cut by its wire format's decoder (decode/), then join the requests arriving at the same time. A group takes what
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

  // The first report of a request that names its event gets the event's claimed id. Claimed only
  // past the rate limit, so the claims a workspace can leave in Redis are bounded by its limit.
  const claimed = new Map<PendingAccept, string>();
  const named = pending.filter(
    (request, index) => request.eventId !== undefined && (takes.taken[index] ?? 0) > 0,
  );
  try {
    const ids = await claimEventIds(
      deps.redis,
      named.map((request) => ({
        key: eventClaimKey(deps.config.REDIS_PREFIX, request.workspaceId, request.eventId!),
        candidate: newId('errorOccurrence'),
      })),
    );
    named.forEach((request, index) => claimed.set(request, ids[index]!));
  } catch (error) {
    deps.logger.warn({ err: error }, 'event id claim failed: redis unreachable');
    await takes.refund().catch(() => undefined);
    throw queueUnavailable();
  }

  const jobs: BulkJob<'error-ingest'>[] = [];
  const outcomes = pending.map((request, index): AcceptOutcome => {
    const taken = takes.taken[index] ?? 0;
    if (taken === 0) return { kind: 'rate_limited' };
    // The fingerprint is the writer's: it maps frames through source maps first (issue 41).
    const kept: QueuedReport[] = request.reports.slice(0, taken).map((report, at) => {
      const extras = request.extras?.[at];
      return {
        ...report,
        id: (at === 0 ? claimed.get(request) : undefined) ?? newId('errorOccurrence'),
        ...(extras?.grouping && { grouping: extras.grouping }),
        ...(extras?.detail && { detail: extras.detail }),
      };
    });
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

/** One request's decoded reports: taken and enqueued with its group. */
export async function acceptReports(deps: IngestDeps, input: AcceptInput): Promise<Accepted> {
  // Nothing valid: nothing to count against the limit and nothing to write.
  if (input.reports.length === 0) return { accepted: 0, ids: [] };
  let rules: ScrubRules;
  try {
    rules = await deps.scrubbing.rules(input.workspaceId);
  } catch (error) {
    // Without the workspace's own keys a secret of theirs could be stored: refuse, like a queue
    // outage, and the client sends it again.
    deps.logger.warn({ err: error }, 'scrubbing rules lookup failed: postgres unreachable');
    throw rulesUnavailable();
  }
  const outcome = await deps.accepts.submit({
    workspaceId: input.workspaceId,
    visitorId: input.visitorId,
    receivedAt: input.receivedAt,
    // Scrubbed before anything else sees them: Redis, the writer, the fingerprint (scrub-report.ts),
    // by the workspace's rules (Settings > Error reporting, at most SCRUB_RULES_TTL_MS old).
    reports: input.reports.map((report) => scrubReport(report, rules)),
    extras: input.extras?.map(
      (extras) =>
        extras && {
          ...extras,
          ...(extras.detail && { detail: scrubDetail(extras.detail, rules) }),
        },
    ),
    eventId: input.eventId,
  });
  if (outcome.kind === 'rate_limited') throw rateLimited(input.rateLimitHeaders);
  return outcome.accepted;
}
