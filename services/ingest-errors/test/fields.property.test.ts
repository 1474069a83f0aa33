import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LIMITS, coerceReport, type StoredReport } from '../src/report.js';
import { storable, truncate } from '@ferry/core';
import { anyString, isWellFormed, wellFormedString } from './strings.js';

const receivedAt = new Date('2026-11-22T12:00:00.000Z');
const coerce = (raw: Record<string, unknown>): StoredReport => {
  const report = coerceReport(raw, undefined, receivedAt);
  if (!report) throw new Error(`expected a valid report: ${JSON.stringify(raw)}`);
  return report;
};

const STRING_FIELDS = [
  ['error_class', LIMITS.errorClass],
  ['message', LIMITS.message],
  ['url', LIMITS.url],
  ['request_method', LIMITS.requestMethod],
  ['request_path', LIMITS.requestPath],
  ['environment', LIMITS.environment],
  ['app_version', LIMITS.appVersion],
] as const;

describe.each(STRING_FIELDS)('%s (cap %d)', (field, cap) => {
  // error_class has one more rule (blank -> UnknownError), tested by example; keep it out here.
  const nonBlank = (value: string): boolean => field !== 'error_class' || value.trim() !== '';

  it('never exceeds its cap, keeps a prefix, and leaves no lone surrogate', () => {
    fc.assert(
      fc.property(anyString(cap), (value) => {
        fc.pre(nonBlank(value));
        const stored = coerce({ [field]: value })[field];
        expect(typeof stored).toBe('string');
        const text = stored as string;
        expect(text.length).toBeLessThanOrEqual(cap);
        expect(storable(value).startsWith(text)).toBe(true);
        expect(isWellFormed(text)).toBe(true);
      }),
    );
  });

  it('keeps a value within its cap exactly', () => {
    // Cut to the cap first so values at and just under it are common, not only short ones.
    const within = wellFormedString(cap).map((value) => truncate(value, cap));
    fc.assert(
      fc.property(within, (value) => {
        fc.pre(nonBlank(value) && !value.includes('\u0000'));
        expect(coerce({ [field]: value })[field]).toBe(value);
      }),
    );
  });

  it('reads numbers and booleans as their string, cut to the cap', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true }), fc.integer(), fc.boolean()), (value) => {
        expect(coerce({ [field]: value })[field]).toBe(truncate(String(value), cap));
      }),
    );
  });
});

describe('backtrace caps', () => {
  const line = fc.oneof(
    wellFormedString(LIMITS.backtraceLine).map((s) => s.replace(/[\r\n]/g, ' ')),
    fc.constant(''),
    fc.constant('   '),
  );
  const lines = fc.array(line, { maxLength: 45 });
  // What the caps would keep before the 8,000 total: lines cut to 400, blank ones out, first 30.
  const perLine = (input: string[]): string[] =>
    input
      .map((l) => truncate(storable(l), LIMITS.backtraceLine))
      .filter((l) => l.trim() !== '')
      .slice(0, LIMITS.backtraceLines);

  it('keeps at most 30 lines of at most 400, 8,000 in all, as a prefix of the input', () => {
    fc.assert(
      fc.property(lines, (input) => {
        const stored = coerce({ backtrace: input }).backtrace;
        expect(stored.length).toBeLessThanOrEqual(LIMITS.backtraceLines);
        for (const l of stored) {
          expect(l.length).toBeLessThanOrEqual(LIMITS.backtraceLine);
          expect(l.trim()).not.toBe('');
          expect(isWellFormed(l)).toBe(true);
        }
        const total = stored.reduce((n, l) => n + l.length, 0);
        expect(total).toBeLessThanOrEqual(LIMITS.backtraceTotal);
        const expected = perLine(input);
        expect(expected.join('\u0001').startsWith(stored.join('\u0001'))).toBe(true);
        // Every kept line but the last is whole; the last may be cut by the total cap.
        stored.slice(0, -1).forEach((l, i) => expect(l).toBe(expected[i]));
        if (expected.reduce((n, l) => n + l.length, 0) <= LIMITS.backtraceTotal) {
          expect(stored).toEqual(expected);
        }
      }),
    );
  });

  it('reads a newline-separated string as the same lines', () => {
    fc.assert(
      fc.property(lines, fc.constantFrom('\n', '\r\n', '\r'), (input, eol) => {
        expect(coerce({ backtrace: input.join(eol) }).backtrace).toEqual(
          coerce({ backtrace: input }).backtrace,
        );
      }),
    );
  });
});

describe('context caps', () => {
  const key = fc.oneof(fc.string({ maxLength: 10 }), fc.string({ minLength: 55, maxLength: 70 }));
  const scalar = fc.oneof(
    wellFormedString(LIMITS.contextValue),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.oneof(scalar, fc.jsonValue({ maxDepth: 3 }));
  const objects = fc.dictionary(key, value, { maxKeys: 40 });

  it('keeps the first 30 keys, cut to 60, strings cut to 500, other values as given', () => {
    fc.assert(
      fc.property(objects, (input) => {
        fc.pre(!JSON.stringify(input).includes('\\u0000'));
        const stored = coerce({ context: input }).context;
        const firstKeys = Object.keys(input).slice(0, LIMITS.contextKeys);
        const storedKeys = Object.keys(stored);
        expect(storedKeys.length).toBeLessThanOrEqual(LIMITS.contextKeys);
        // In order, each the cut of an input key, the first of any that cut to the same key.
        const expectedKeys = [...new Set(firstKeys.map((k) => truncate(k, LIMITS.contextKey)))];
        expect(storedKeys).toEqual(expectedKeys);
        for (const storedKey of storedKeys) {
          expect(storedKey.length).toBeLessThanOrEqual(LIMITS.contextKey);
          const from = firstKeys.find((k) => truncate(k, LIMITS.contextKey) === storedKey)!;
          const original = input[from];
          const kept = stored[storedKey];
          if (typeof original === 'string') {
            expect(kept).toBe(truncate(original, LIMITS.contextValue));
          } else if (typeof original === 'number') {
            expect(kept).toBe(original);
          } else {
            expect(kept).toEqual(original);
          }
        }
      }),
    );
  });
});
