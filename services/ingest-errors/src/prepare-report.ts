import { anyFrameMapped, detailFrameLine, detailFrames, type Symbolicator } from '@ferry/workspace';
import { fingerprint } from './fingerprint.js';
import type { QueuedReport } from './queued.js';
import { cutBacktrace } from './report.js';

/** A queued report made ready to write: its frames mapped, its fingerprint known. */
export type WritableReport = QueuedReport & { fingerprint: string };

/**
 * What the writer does to a report before it is grouped (issue 41; DESIGN.md, fourth wave):
 * - minified frames are mapped through the workspace's source maps, and SPEC.md's backtrace is
 *   rendered again from the mapped frames (same frames, same order, so the grouping hint's index
 *   still points at the same frame);
 * - then the fingerprint is computed, once (SPEC.md), from the report as stored: so two builds of
 *   the same code, minified differently, group together.
 * A job queued before the writer computed fingerprints keeps the one it was given at accept time.
 */
export async function prepareReport(
  report: QueuedReport,
  workspaceId: string,
  symbolicator: Symbolicator | undefined,
): Promise<WritableReport> {
  if (report.fingerprint) return { ...report, fingerprint: report.fingerprint };
  let prepared = report;
  if (symbolicator && report.detail) {
    const detail = await symbolicator.symbolicate(workspaceId, report.detail);
    if (anyFrameMapped(detail)) {
      const backtrace = cutBacktrace(detailFrames(detail).map(detailFrameLine));
      prepared = { ...report, detail, backtrace };
    }
  }
  return { ...prepared, fingerprint: fingerprint(prepared, prepared.grouping) };
}
