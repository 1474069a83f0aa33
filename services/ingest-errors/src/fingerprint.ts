import { createHash } from 'node:crypto';
import type { StoredReport } from './report.js';
import { truncate } from '@ferry/core';
import type { z } from 'zod';
import type { groupingHintSchema } from './queued.js';

/** Without a backtrace, this much of the message stands in for the top frame (SPEC.md). */
export const MESSAGE_PREFIX = 120;

/**
 * Which frame and message a report groups by, when its wire format knows better than SPEC.md's
 * default (the innermost frame, the stored message): a Sentry event's in-app frame and its log
 * line's template (decode/sentry-grouping.ts). `frame` indexes the backtrace (innermost first);
 * null: no frame of the app's, so the message decides.
 */
export type GroupingHint = z.infer<typeof groupingHintSchema>;

/**
 * The group key, computed once at write time from the stored (already cut) report: error class +
 * top backtrace frame, or + the first 120 characters of the message when there is no backtrace.
 * The message is not used when a frame exists, so different messages from one line share a group,
 * and a moved line number starts a new one.
 *
 * Encoded as a JSON array before hashing so no two inputs share an encoding ("A" + "bc" is not
 * "Ab" + "c"); the first element says which kind of second part follows, so a message can never
 * collide with a frame of the same text. The frame is trimmed: indentation is not part of where
 * the error was raised. SHA-256 hex (64 characters).
 */
export function fingerprint(
  report: Pick<StoredReport, 'error_class' | 'message' | 'backtrace'>,
  hint?: GroupingHint,
): string {
  const frame = hint
    ? hint.frame === null
      ? undefined
      : report.backtrace[hint.frame]
    : report.backtrace[0];
  const message = hint?.message ?? report.message;
  const key =
    frame === undefined
      ? ['message', report.error_class, truncate(message, MESSAGE_PREFIX)]
      : ['frame', report.error_class, frame.trim()];
  return createHash('sha256').update(JSON.stringify(key)).digest('hex');
}

/**
 * The group key of a report a workspace's fingerprint rule matched (issue 43): the rule's output
 * parts, hashed as above with a first element no default key uses. A rule whose whole output is
 * `{{ default }}` changes nothing, so it keeps the default key itself.
 */
export function ruleFingerprint(parts: readonly string[], defaultFingerprint: string): string {
  if (parts.length === 1 && parts[0] === defaultFingerprint) return defaultFingerprint;
  return createHash('sha256')
    .update(JSON.stringify(['rule', ...parts]))
    .digest('hex');
}
