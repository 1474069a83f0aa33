import type { GroupCommit } from '@ferry/core';
import type { OccurrenceDetail } from '@ferry/workspace';
import type { GroupingHint } from './fingerprint.js';
import type { StoredReport } from './report.js';
import type { Accepted } from './api-schemas.js';

/**
 * The accept path's group-commit types, on their own so deps.ts (which holds the groups) and
 * accept.ts (which makes and uses them) both import them without importing each other.
 */

/** The 202's body: its type is the described schema's (api-schemas.ts), so they cannot drift. */
export type { Accepted } from './api-schemas.js';

/** What a Sentry event adds to its report: what it groups by, and its structured detail. */
export interface ReportExtras {
  grouping?: GroupingHint;
  detail?: OccurrenceDetail;
}

/** One request's valid reports, waiting for its group's rate-limit take and enqueue. */
export interface PendingAccept {
  workspaceId: string;
  visitorId: string | undefined;
  receivedAt: Date;
  reports: StoredReport[];
  /** Beside `reports`, by index: what a wire format knows beyond SPEC.md's fields. */
  extras: readonly (ReportExtras | undefined)[] | undefined;
  eventId: string | undefined;
}

export type AcceptOutcome = { kind: 'accepted'; accepted: Accepted } | { kind: 'rate_limited' };

export type AcceptGroups = GroupCommit<PendingAccept, AcceptOutcome>;
