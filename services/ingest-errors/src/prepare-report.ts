import {
  anyFrameMapped,
  detailFrameLine,
  detailFrames,
  firstMatchingRule,
  ruleFingerprintParts,
  ruleLabel,
  ruleSubject,
  type FingerprintRule,
  type Symbolicator,
} from '@ferry/workspace';
import { fingerprint, ruleFingerprint } from './fingerprint.js';
import type { QueuedReport } from './queued.js';
import { cutBacktrace } from './report.js';

/**
 * A queued report made ready to write: its frames mapped, its fingerprint known, and which of the
 * workspace's fingerprint rules made it ("line N: …"), when one did.
 */
export type WritableReport = QueuedReport & { fingerprint: string; fingerprintRule?: string };

/**
 * What the writer does to a report before it is grouped (issue 41; DESIGN.md, fourth wave):
 * - minified frames are mapped through the workspace's source maps, and SPEC.md's backtrace is
 *   rendered again from the mapped frames (same frames, same order, so the grouping hint's index
 *   still points at the same frame);
 * - then the fingerprint is computed, once (SPEC.md), from the report as stored: so two builds of
 *   the same code, minified differently, group together.
 * - the workspace's fingerprint rules (issue 43) then have their say: the first that matches
 *   makes the fingerprint from its output, `{{ default }}` standing for the one just computed.
 *   Rules apply here, at write time, so editing them regroups new occurrences only.
 * A job queued before the writer computed fingerprints keeps the one it was given at accept time.
 */
export async function prepareReport(
  report: QueuedReport,
  workspaceId: string,
  symbolicator: Symbolicator | undefined,
  rules: readonly FingerprintRule[] = [],
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
  const byDefault = fingerprint(prepared, prepared.grouping);
  if (rules.length === 0) return { ...prepared, fingerprint: byDefault };
  const subject = ruleSubject(prepared);
  const rule = firstMatchingRule(rules, subject);
  if (!rule) return { ...prepared, fingerprint: byDefault };
  return {
    ...prepared,
    fingerprint: ruleFingerprint(ruleFingerprintParts(rule, subject, byDefault), byDefault),
    fingerprintRule: ruleLabel(rule),
  };
}
