import { describe, expect, it } from 'vitest';
import { FILTERED } from '@ferry/core';
import { OCCURRENCE_LIMITS } from '@ferry/workspace';
import { coerceReport } from '../src/report.js';
import { scrubReport } from '../src/scrub-report.js';

const receivedAt = new Date('2026-11-28T12:00:00Z');

describe('scrubReport keeps SPEC.md’s caps', () => {
  it('cuts a field that [Filtered] made longer than its cap back to the cap', () => {
    // A short bearer token at the very end of a full-length field: "Bearer a" becomes longer.
    const full = (cap: number) => `${'x'.repeat(cap - 9)} Bearer a`;
    const report = coerceReport(
      {
        error_class: 'E',
        message: full(OCCURRENCE_LIMITS.message),
        url: `https://shop.test/?q=${full(OCCURRENCE_LIMITS.url - 21)}`,
        context: { note: full(OCCURRENCE_LIMITS.contextValue) },
      },
      undefined,
      receivedAt,
    )!;
    expect(report.message).toHaveLength(OCCURRENCE_LIMITS.message);
    const scrubbed = scrubReport(report);
    expect(scrubbed.message).toHaveLength(OCCURRENCE_LIMITS.message);
    // The secret is gone; what is left of [Filtered] is cut at the cap.
    expect(scrubbed.message.endsWith(' Bearer [')).toBe(true);
    expect(scrubbed.url).toHaveLength(OCCURRENCE_LIMITS.url);
    expect(scrubbed.context.note).toHaveLength(OCCURRENCE_LIMITS.contextValue);
    expect(scrubReport({ ...report, message: 'short Bearer abc' }).message).toBe(
      `short Bearer ${FILTERED}`,
    );
  });
});
