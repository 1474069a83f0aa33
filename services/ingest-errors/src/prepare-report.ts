import { fingerprint } from './fingerprint.js';
import type { QueuedReport } from './queued.js';

/** A queued report made ready to write: its fingerprint is known. */
export type WritableReport = QueuedReport & { fingerprint: string };

/**
 * What the writer does to a report before it is grouped (issue 41): its fingerprint, computed
 * once at write time (SPEC.md) from the report as stored: for a Sentry event, the frame and message
 * its grouping hint names. A job queued before the writer computed fingerprints keeps the one it
 * was given at accept time.
 */
export function prepareReport(report: QueuedReport): WritableReport {
  return { ...report, fingerprint: report.fingerprint ?? fingerprint(report, report.grouping) };
}
