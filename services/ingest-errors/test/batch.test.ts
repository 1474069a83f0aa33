import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LIMITS, parseBatch } from '../src/report.js';

const receivedAt = new Date('2026-11-22T12:00:00.000Z');
const report = (i: number): Record<string, unknown> => ({ error_class: `E${i}`, message: `m${i}` });

describe('parseBatch', () => {
  it('reads one report object', () => {
    const { reports, dropped, ignored } = parseBatch(report(1), receivedAt);
    expect(reports.map((r) => r.error_class)).toEqual(['E1']);
    expect([dropped, ignored]).toEqual([0, 0]);
  });

  it('reads {errors: [...]} with a top-level source that each report may override', () => {
    const { reports } = parseBatch(
      { source: 'node', errors: [report(1), { ...report(2), source: 'js' }] },
      receivedAt,
    );
    expect(reports.map((r) => [r.error_class, r.source])).toEqual([
      ['E1', 'node'],
      ['E2', 'js'],
    ]);
  });

  it('keeps at most 10 reports; extras are ignored', () => {
    const errors = Array.from({ length: 13 }, (_, i) => report(i));
    const { reports, dropped, ignored } = parseBatch({ errors }, receivedAt);
    expect(reports.map((r) => r.error_class)).toEqual(
      Array.from({ length: 10 }, (_, i) => `E${i}`),
    );
    expect([dropped, ignored]).toEqual([0, 3]);
  });

  it('drops invalid reports silently and keeps the rest', () => {
    const errors = [report(0), 'junk', report(2), { context: [1] }, null, report(5)];
    const { reports, dropped } = parseBatch({ errors }, receivedAt);
    expect(reports.map((r) => r.error_class)).toEqual(['E0', 'E2', 'E5']);
    expect(dropped).toBe(3);
  });

  it('counts the first 10 items, so an invalid one is not replaced by the 11th', () => {
    const errors = [...Array.from({ length: 9 }, (_, i) => report(i)), 'junk', report(10)];
    const { reports, dropped, ignored } = parseBatch({ errors }, receivedAt);
    expect(reports).toHaveLength(9);
    expect(reports.map((r) => r.error_class)).not.toContain('E10');
    expect([dropped, ignored]).toEqual([1, 1]);
  });

  it('keeps nothing from a body that is no report', () => {
    for (const body of [null, 'text', 42, [report(1)]]) {
      expect(parseBatch(body, receivedAt)).toEqual({ reports: [], dropped: 1, ignored: 0 });
    }
  });

  it('accepts an empty batch', () => {
    expect(parseBatch({ errors: [] }, receivedAt)).toEqual({ reports: [], dropped: 0, ignored: 0 });
  });

  it('reads an object whose errors is not an array as one report', () => {
    const { reports } = parseBatch({ error_class: 'Solo', errors: 'x' }, receivedAt);
    expect(reports.map((r) => r.error_class)).toEqual(['Solo']);
  });

  it('uses the time of receipt for every report without its own time', () => {
    const { reports } = parseBatch({ errors: [report(1), report(2)] }, receivedAt);
    expect(reports.map((r) => r.occurred_at)).toEqual([
      receivedAt.toISOString(),
      receivedAt.toISOString(),
    ]);
  });

  it('never throws and never keeps more than 10, whatever JSON arrives', () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record({ errors: fc.array(fc.jsonValue(), { maxLength: 15 }), source: fc.jsonValue() }),
    );
    fc.assert(
      fc.property(body, (value) => {
        const { reports, dropped, ignored } = parseBatch(value, receivedAt);
        expect(reports.length).toBeLessThanOrEqual(LIMITS.reportsPerRequest);
        expect(reports.length + dropped).toBeLessThanOrEqual(LIMITS.reportsPerRequest);
        expect(ignored).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
