import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MESSAGE_PREFIX, fingerprint } from '../src/fingerprint.js';
import { coerceReport, type StoredReport } from '../src/report.js';

const receivedAt = new Date('2026-11-22T12:00:00.000Z');
const stored = (raw: Record<string, unknown>): StoredReport => {
  const report = coerceReport(raw, undefined, receivedAt);
  if (!report) throw new Error('expected a valid report');
  return report;
};
const fp = (raw: Record<string, unknown>): string => fingerprint(stored(raw));

describe('fingerprint', () => {
  it('is SHA-256 hex', () => {
    expect(fp({ error_class: 'E', message: 'm' })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('puts different messages of the same class from the same line in one group', () => {
    const a = fp({
      error_class: 'NoMethodError',
      message: 'for nil',
      backtrace: ['app.rb:10', 'x'],
    });
    const b = fp({
      error_class: 'NoMethodError',
      message: 'for 42',
      backtrace: ['app.rb:10', 'y'],
    });
    expect(a).toBe(b);
    fc.assert(
      fc.property(fc.string(), fc.string(), (m1, m2) => {
        expect(fp({ error_class: 'E', message: m1, backtrace: ['app.rb:10'] })).toBe(
          fp({ error_class: 'E', message: m2, backtrace: ['app.rb:10'] }),
        );
      }),
    );
  });

  it('starts a new group when the top frame moves to another line', () => {
    const before = fp({ error_class: 'NoMethodError', backtrace: ['app.rb:10'] });
    const after = fp({ error_class: 'NoMethodError', backtrace: ['app.rb:11'] });
    expect(before).not.toBe(after);
  });

  it('tells classes apart, and uses only the top frame', () => {
    expect(fp({ error_class: 'A', backtrace: ['app.rb:10'] })).not.toBe(
      fp({ error_class: 'B', backtrace: ['app.rb:10'] }),
    );
    expect(fp({ error_class: 'A', backtrace: ['app.rb:10', 'lib.rb:1'] })).toBe(
      fp({ error_class: 'A', backtrace: ['app.rb:10', 'lib.rb:2'] }),
    );
  });

  it('ignores the indentation of the top frame', () => {
    expect(fp({ error_class: 'E', backtrace: '    at f (a.js:1:2)\n' })).toBe(
      fp({ error_class: 'E', backtrace: ['at f (a.js:1:2)'] }),
    );
  });

  it('uses the first 120 characters of the message when there is no backtrace', () => {
    const head = 'm'.repeat(MESSAGE_PREFIX);
    expect(fp({ error_class: 'E', message: `${head} user 1` })).toBe(
      fp({ error_class: 'E', message: `${head} user 2` }),
    );
    expect(fp({ error_class: 'E', message: `${head.slice(1)}a` })).not.toBe(
      fp({ error_class: 'E', message: `${head.slice(1)}b` }),
    );
    expect(fp({ error_class: 'E', message: 'short' })).not.toBe(
      fp({ error_class: 'E', message: 'other' }),
    );
  });

  it('treats a blank backtrace as none', () => {
    expect(fp({ error_class: 'E', message: 'm', backtrace: ['', '  '] })).toBe(
      fp({ error_class: 'E', message: 'm' }),
    );
  });

  it('encodes its parts unambiguously', () => {
    expect(fp({ error_class: 'A', backtrace: ['bc'] })).not.toBe(
      fp({ error_class: 'Ab', backtrace: ['c'] }),
    );
    expect(fp({ error_class: 'A', message: 'bc' })).not.toBe(
      fp({ error_class: 'Ab', message: 'c' }),
    );
    // A message never stands for a frame with the same text.
    expect(fp({ error_class: 'E', message: 'app.rb:10' })).not.toBe(
      fp({ error_class: 'E', backtrace: ['app.rb:10'] }),
    );
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (c1, f1, c2, f2) => {
        fc.pre(c1 !== c2 && c1.trim() !== '' && c2.trim() !== '');
        fc.pre(f1.trim() !== '' && f2.trim() !== '' && !/[\r\n]/.test(f1 + f2));
        expect(fp({ error_class: c1, backtrace: [f1] })).not.toBe(
          fp({ error_class: c2, backtrace: [f2] }),
        );
      }),
    );
  });
});
