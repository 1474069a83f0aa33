import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '@ferry/core';
import { idSchema } from '@ferry/queues';
import { ANNOUNCE_BATCH_MAX, publishServerSideEvent } from '../messages/live.js';
import { OCCURRENCE_LIMITS } from './occurrence.js';

/**
 * Live Errors list (issue 26): how web processes hear that the error writer committed new
 * occurrences, so an open Errors page can say "N new errors arrived".
 *
 * The writer (services/ingest-errors) publishes one `errors:written` server-side event per
 * committed batch, after the commit and never inside the transaction, on the same socket.io Redis
 * adapter channel the outbox relay announces messages on (live.ts). It names, per workspace, the
 * groups that got really new occurrences (a replayed job's are not new) and how many, by
 * environment. Ids and counts only: each web process re-checks in the database who may read errors
 * and which groups match each page's filter (services/web/src/features/errors/live.ts), and the page
 * renders its own text.
 *
 * Coalesced twice: the writer publishes once per batch (up to 100 requests' reports), and each web
 * process tells a page at most once a second, whatever the rate. Best effort: a page that missed
 * an announcement shows the occurrences on its next load.
 */

export const ERRORS_WRITTEN_EVENT = 'errors:written';

/** Environment names as ingest keeps them. */
const ENVIRONMENT_MAX = OCCURRENCE_LIMITS.environment;

export const writtenGroupSchema = z.object({
  id: idSchema('errorGroup'),
  /** New occurrences of the group in the batch. */
  n: z.number().int().positive(),
  /** The batch created the group (its first occurrence). */
  created: z.boolean(),
  /**
   * New occurrences per environment named, for a page filtered to one environment. Pairs, not an
   * object: a key such as `__proto__` from a report must stay plain data.
   */
  environments: z.array(
    z.tuple([z.string().min(1).max(ENVIRONMENT_MAX), z.number().int().positive()]),
  ),
});

export const errorsWrittenSchema = z.object({
  workspaces: z
    .array(
      z.object({
        workspaceId: idSchema('workspace'),
        groups: z.array(writtenGroupSchema).min(1).max(ANNOUNCE_BATCH_MAX),
      }),
    )
    .min(1)
    .max(ANNOUNCE_BATCH_MAX),
});

export type WrittenGroup = z.infer<typeof writtenGroupSchema>;
export type ErrorsWritten = z.infer<typeof errorsWrittenSchema>;
export type WorkspaceErrorsWritten = ErrorsWritten['workspaces'][number];

export interface ErrorsAnnouncer {
  /** Tells every web process what a committed batch wrote. Never throws, never rejects. */
  announce(written: readonly WorkspaceErrorsWritten[]): Promise<void>;
}

/**
 * Announcements of at most ANNOUNCE_BATCH_MAX groups each (what the schema accepts): one for a
 * normal batch, several only for a batch with more distinct groups than that.
 */
export function chunkErrorsWritten(written: readonly WorkspaceErrorsWritten[]): ErrorsWritten[] {
  const chunks: ErrorsWritten[] = [];
  let current: WorkspaceErrorsWritten[] = [];
  let size = 0;
  for (const { workspaceId, groups } of written) {
    for (let start = 0; start < groups.length;) {
      const room = ANNOUNCE_BATCH_MAX - size;
      const part = groups.slice(start, start + room);
      current.push({ workspaceId, groups: part });
      size += part.length;
      start += part.length;
      if (size === ANNOUNCE_BATCH_MAX) {
        chunks.push({ workspaces: current });
        current = [];
        size = 0;
      }
    }
  }
  if (current.length) chunks.push({ workspaces: current });
  return chunks;
}

export function createErrorsAnnouncer(
  redis: Redis,
  prefix: string,
  logger: Logger,
): ErrorsAnnouncer {
  return {
    async announce(written) {
      for (const payload of chunkErrorsWritten(written)) {
        await publishServerSideEvent(redis, prefix, logger, ERRORS_WRITTEN_EVENT, payload);
      }
    },
  };
}
