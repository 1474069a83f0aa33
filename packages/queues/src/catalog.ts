import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { isId, type IdKind } from '@ferry/core';

/**
 * THE queue catalog: every BullMQ queue we own is declared here, once. Producers and workers take
 * a queue by name and get its payload type from the schema, so a payload can't drift between the
 * two. Adding a queue is one entry below; give it a handler in the service that owns it.
 *
 * Payload schemas describe plain JSON without transforms: the producer stores what the schema
 * parsed and the worker parses it again when it reads the job, so output must parse as input.
 * Unknown keys are stripped rather than rejected, which lets a newer producer add a field before
 * every worker knows it (rolling deploys).
 */
export interface QueueDefinition<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** BullMQ job name; the queue name when absent. */
  jobName?: string;
  /** Defaults for every job added to the queue (a caller can still pass a jobId or delay). */
  jobOptions: Required<
    Pick<JobsOptions, 'attempts' | 'backoff' | 'removeOnComplete' | 'removeOnFail'>
  >;
  /** Jobs one worker process runs at once, unless the service overrides it. */
  concurrency?: number;
  /** An attempt running longer fails (and is retried); the handler's AbortSignal fires. */
  timeoutMs?: number;
  /**
   * The outbox relay merges the jobs one of its wakes makes for this queue into jobs of up to this
   * many (`{ batch: [...] }`, see `batchable`; the schema must accept that form). Each job costs
   * several Redis round trips and Lua scripts on both sides, whatever it carries, so a backlog
   * relayed one job per event spends most of its time on the queue, not on the work.
   */
  relayBatchMax?: number;
}

const defineQueue = <S extends z.ZodType>(definition: QueueDefinition<S>): QueueDefinition<S> =>
  definition;

/** The items of a `batchable` payload, in the order they were relayed. */
export function batchItems<T extends object>(payload: T | { batch: T[] }): T[] {
  return 'batch' in payload ? payload.batch : [payload];
}

/** An id of our shape (`msg_...`); of one kind when the kind is known to @ferry/core. */
export const idSchema = (kind?: IdKind) =>
  z.string().refine((value) => isId(value, kind), {
    message: kind ? `expected a ${kind} id` : 'expected an id',
  });

/**
 * A payload that is one item, or a batch of them merged by the relay (relayBatchMax). Both forms
 * stay accepted: a job queued as one item before a deploy is still run after it. A batch is one
 * workspace's items, named at its top as an item names it, so whatever reads a job's workspace
 * (the Ops page's failed jobs) reads a batch the same way.
 */
const batchable = <S extends z.ZodObject<{ workspaceId: z.ZodType<string> }>>(
  item: S,
  max: number,
) =>
  z.union([
    item,
    z
      .object({ workspaceId: idSchema('workspace'), batch: z.array(item).min(1).max(max) })
      .refine((job) => job.batch.every((one) => one.workspaceId === job.workspaceId), {
        message: 'every item of a batch is of its workspace',
      }),
  ]);

/** Messages in one fan-out job at most: the owing INSERT of a group takes a few hundred at once. */
/** A plain object, checked without copying it (unlike z.record); its keys are the consumer's. */
const looseObject = (message: string) =>
  z.custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    message,
  );

const FAN_OUT_BATCH_MAX = 100;

/** One member's message to owe to its room's outgoing hooks. */
const messageFanOutSchema = z.object({
  eventId: idSchema('outbox'),
  messageId: idSchema('message'),
  roomId: idSchema('room'),
  workspaceId: idSchema('workspace'),
});
export type MessageFanOut = z.output<typeof messageFanOutSchema>;

export const queueCatalog = {
  /** One job per accepted POST /ingest/errors request; the worker writes reports in batches. */
  'error-ingest': defineQueue({
    // Reports stay loose here; the ingest service owns their exact shape (its writer checks each
    // one against queuedReportSchema). An object check, not z.record: a record copies every report
    // key by key, on the producer and again on the worker (issue 48: 3 % of the ingest path).
    schema: z.object({
      workspaceId: idSchema('workspace'),
      /** The known visitor the request named (X-Service-Visitor); null or absent otherwise. */
      visitorId: idSchema('visitor').nullable().optional(),
      /** When the HTTP request was accepted (ISO 8601); stored as each occurrence's received_at. */
      receivedAt: z.iso.datetime({ offset: true }).optional(),
      reports: z.array(looseObject('expected a report object')),
    }),
    // A job holds accepted reports: a 202 promised they would be stored, so retries must outlast
    // a Postgres outage of minutes, not seconds. `capped-exponential` is the ingest worker's own
    // strategy (startErrorWriter registers it): 1 s doubling to a 60 s cap (minus up to 20%
    // jitter), so 40 attempts keep trying for about half an hour (27-34 min) while writes resume
    // within a minute of recovery.
    // BullMQ's built-in exponential is uncapped (attempt 12 alone would wait 34 minutes).
    // Failed jobs are never removed: one that still fails holds reports someone must replay.
    jobOptions: {
      attempts: 40,
      backoff: { type: 'capped-exponential', delay: 1_000 },
      removeOnComplete: 1_000,
      removeOnFail: false,
    },
    concurrency: 4,
    timeoutMs: 30_000,
  }),
  /**
   * message_created fan-out of members' messages: the worker finds each room's enabled hooks and
   * owes each a delivery (grouped with the fan-outs running at the same moment, one INSERT), then
   * wakes its own process's drains of those hooks. webhooks-out runs many at once (its
   * WEBHOOK_FAN_OUT_CONCURRENCY overrides the concurrency below). A backlog is relayed up to
   * FAN_OUT_BATCH_MAX messages a job; a quiet room's message is a job of its own, relayed at once.
   */
  'webhook-delivery': defineQueue({
    schema: batchable(messageFanOutSchema, FAN_OUT_BATCH_MAX),
    relayBatchMax: FAN_OUT_BATCH_MAX,
    jobOptions: {
      attempts: 10,
      backoff: { type: 'exponential', delay: 2_000 },
      removeOnComplete: 1_000,
      removeOnFail: 10_000,
    },
    concurrency: 8,
    timeoutMs: 30_000,
  }),
  /**
   * A wake-up for one outgoing hook (the sweep, a retry coming due, a re-enable): the job hands the
   * hook to its process's drain scheduler, which sends the due deliveries in runs, oldest message
   * first (services/webhooks-out/src/jobs/drain-hook.ts, drains.ts). Any number of these may exist
   * for one hook: a lease on the head delivery keeps the sends serial, so duplicates are harmless.
   */
  'webhook-drain': defineQueue({
    schema: z.object({ hookId: idSchema('outgoingWebhook') }),
    jobOptions: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: 1_000,
      removeOnFail: 5_000,
    },
    concurrency: 32,
    timeoutMs: 60_000,
  }),
  /**
   * One send by hand, outside the hook's order: 'Send again' on a delivery, or a test event when
   * `deliveryId` is absent.
   */
  'webhook-send-once': defineQueue({
    schema: z.object({
      hookId: idSchema('outgoingWebhook'),
      deliveryId: idSchema('webhookDelivery').optional(),
    }),
    jobOptions: {
      attempts: 1,
      backoff: { type: 'fixed', delay: 1_000 },
      removeOnComplete: 1_000,
      removeOnFail: 5_000,
    },
    concurrency: 8,
    timeoutMs: 30_000,
  }),
  /**
   * Work for local agents, from two events: a filed ticket (-> the workspace's receiving agent)
   * and a member's message addressed to agents (`agentIds`). The handler (services/agent-gateway)
   * writes each agent's durable work log.
   */
  'agent-work': defineQueue({
    schema: z.discriminatedUnion('kind', [
      z.object({
        kind: z.literal('feedback'),
        eventId: idSchema('outbox'),
        feedbackId: idSchema('feedback'),
        workspaceId: idSchema('workspace'),
      }),
      z.object({
        kind: z.literal('message'),
        eventId: idSchema('outbox'),
        messageId: idSchema('message'),
        roomId: idSchema('room'),
        workspaceId: idSchema('workspace'),
        agentIds: z.array(idSchema('agent')).min(1).max(50),
      }),
    ]),
    jobOptions: {
      attempts: 10,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: 1_000,
      removeOnFail: 10_000,
    },
    concurrency: 8,
    timeoutMs: 30_000,
  }),
  /**
   * The end of an hour in which a workspace's error alerts went over the room's cap (issue 26):
   * posts one "N more alerts held" line (services/webhooks-out). Delayed to the hour's end by the
   * relay (the `error_alerts_held` event's delay); idempotent on the window's held_posted flag.
   */
  'error-alerts-held': defineQueue({
    schema: z.object({
      workspaceId: idSchema('workspace'),
      ruleId: idSchema('errorAlertRule').optional(),
      windowStart: z.iso.datetime({ offset: true }),
      errorsUrl: z.url(),
    }),
    jobOptions: {
      attempts: 10,
      backoff: { type: 'exponential', delay: 5_000 },
      removeOnComplete: 1_000,
      removeOnFail: 5_000,
    },
    concurrency: 4,
    timeoutMs: 30_000,
  }),
  /**
   * One bulk action over error groups (issue 43): resolve, ignore, reopen, assign or merge a
   * selection of up to ERROR_BULK_MAX groups, chunk by chunk (services/ingest-errors). The row's
   * cursor advances with each chunk's commit, so a retried or stalled job goes on where it was.
   */
  'error-bulk': defineQueue({
    schema: z.object({ actionId: idSchema('errorBulkAction'), workspaceId: idSchema('workspace') }),
    jobOptions: {
      attempts: 10,
      backoff: { type: 'exponential', delay: 2_000 },
      removeOnComplete: 1_000,
      removeOnFail: 5_000,
    },
    concurrency: 2,
    timeoutMs: 600_000,
  }),
  /**
   * An alert rule handed an error group to the agent (issue 43): files the group's "Fix with
   * agent" ticket (services/ingest-errors). Written to the outbox in the writer's transaction that
   * claimed the hand-off, so a crash after that commit still files it; filing is idempotent (one
   * ticket a group), so a re-run job files nothing twice.
   */
  'error-handoff': defineQueue({
    schema: z.object({ workspaceId: idSchema('workspace'), groupId: idSchema('errorGroup') }),
    jobOptions: {
      attempts: 10,
      backoff: { type: 'exponential', delay: 2_000 },
      removeOnComplete: 1_000,
      removeOnFail: 5_000,
    },
    concurrency: 4,
    timeoutMs: 60_000,
  }),
  /** A wake request to an offline agent's Wake URL. */
  'agent-wake': defineQueue({
    schema: z.object({ agentId: idSchema('agent'), workspaceId: idSchema('workspace') }),
    jobOptions: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 5_000 },
      removeOnComplete: 1_000,
      removeOnFail: 5_000,
    },
    concurrency: 4,
    timeoutMs: 15_000,
  }),
  /**
   * Advances one dispatch's hosted-agent flow (services/dispatch): each run does the next
   * unfinished step (issue, agent task or assignment, triage) or one poll of the task, and
   * schedules its successor (`round` + 1, a delayed job whose id is derived from the round, so a
   * re-run job never forks the chain). GitHub outages are retried with backoff.
   */
  dispatch: defineQueue({
    schema: z.object({
      dispatchId: idSchema('dispatch'),
      round: z.number().int().min(0).max(100_000),
    }),
    jobOptions: {
      attempts: 8,
      backoff: { type: 'exponential', delay: 5_000 },
      removeOnComplete: 1_000,
      removeOnFail: 5_000,
    },
    concurrency: 4,
    timeoutMs: 120_000,
  }),
};

export type QueueName = keyof typeof queueCatalog;
/** What a worker's handler receives (parsed). */
export type JobPayload<Q extends QueueName> = z.output<(typeof queueCatalog)[Q]['schema']>;
/** What a producer passes (before parsing). */
export type JobInput<Q extends QueueName> = z.input<(typeof queueCatalog)[Q]['schema']>;

export const queueNames = Object.keys(queueCatalog) as QueueName[];

export function isQueueName(value: string): value is QueueName {
  return Object.hasOwn(queueCatalog, value);
}

export function jobNameOf(queue: QueueName): string {
  const definition: QueueDefinition = queueCatalog[queue];
  return definition.jobName ?? queue;
}

export interface AddOptions {
  /** Dedupes: BullMQ ignores an add whose id is already a job in that queue (until it is removed). */
  jobId?: string;
  delay?: number;
}

/** One job of a bulk add, typed by its queue. */
export type BulkJob<Q extends QueueName = QueueName> = {
  [K in Q]: { queue: K; payload: JobInput<K>; opts?: AddOptions };
}[Q];

/**
 * The relay's jobs of one wake, with those of queues that declare relayBatchMax merged: per queue
 * and workspace, in order, up to that many a job. A job of one keeps its own form and id (the
 * event id). A merged job's id is its first event's id and its size, so relaying the same rows
 * again after a crash adds the same job, which BullMQ ignores while it exists. Delayed jobs are
 * never merged.
 */
export function mergeRelayBatches(jobs: readonly BulkJob[]): BulkJob[] {
  const merged: BulkJob[] = [];
  const groups = new Map<string, { queue: QueueName; workspaceId: string; jobs: BulkJob[] }>();
  for (const job of jobs) {
    const definition: QueueDefinition = queueCatalog[job.queue];
    const workspaceId = 'workspaceId' in job.payload ? job.payload.workspaceId : undefined;
    if (!definition.relayBatchMax || job.opts?.delay || typeof workspaceId !== 'string') {
      merged.push(job);
      continue;
    }
    const key = `${job.queue} ${workspaceId}`;
    const group = groups.get(key);
    if (group) group.jobs.push(job);
    else groups.set(key, { queue: job.queue, workspaceId, jobs: [job] });
  }
  for (const { queue, workspaceId, jobs: list } of groups.values()) {
    const max = (queueCatalog[queue] as QueueDefinition).relayBatchMax!;
    for (let from = 0; from < list.length; from += max) {
      const chunk = list.slice(from, from + max);
      const first = chunk[0]!;
      if (chunk.length === 1) {
        merged.push(first);
        continue;
      }
      // Sound: every job of `chunk` is of `queue` and `workspaceId`, and the queue's schema
      // accepts a batch of its items (batchable).
      merged.push({
        queue,
        payload: { workspaceId, batch: chunk.map((job) => job.payload) },
        opts: first.opts?.jobId ? { jobId: `${first.opts.jobId}-batch-${chunk.length}` } : {},
      } as BulkJob);
    }
  }
  return merged;
}

export type ParseResult<T> = { success: true; data: T } | { success: false; error: z.ZodError };

/** Validates `data` against a queue's schema; the one place a parsed payload gets its queue's type. */
export function safeParseJob<Q extends QueueName>(
  queue: Q,
  data: unknown,
): ParseResult<JobPayload<Q>> {
  // Indexing the catalog with a generic Q widens the schema to the union of all schemas; the
  // schema used is Q's own, so its output is JobPayload<Q>.
  return queueCatalog[queue].schema.safeParse(data) as ParseResult<JobPayload<Q>>;
}

/** `path: message; path: message`, short enough for an error message or a log line. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || '(payload)'}: ${issue.message}`)
    .join('; ');
}

/** A payload that does not match its catalog schema, thrown before anything reaches Redis. */
export class InvalidPayloadError extends Error {
  constructor(
    readonly target: string,
    readonly issues: z.ZodError['issues'],
    detail: string,
  ) {
    super(`Invalid payload for ${target}: ${detail}`);
    this.name = 'InvalidPayloadError';
  }
}

/**
 * BullMQ builds Redis keys from job ids: it rejects ids with ':' (key separator) and integer-looking
 * ids (they would collide with its own counter). We check first so the error says what to do.
 */
export function assertJobId(jobId: string): void {
  if (jobId.includes(':') || `${Number.parseInt(jobId, 10)}` === jobId || jobId === '') {
    throw new Error(
      `Invalid job id "${jobId}": BullMQ job ids must be non-empty, not an integer, and must not ` +
        `contain ':' (use '-' or '_' as a separator).`,
    );
  }
}
