import { describe, expect, it } from 'vitest';
import { backtraceOf, buildReport, errorClassOf } from '../src/report.js';
import { Throttle } from '../src/throttle.js';
import { retryAfterMs } from '../src/transport.js';

describe('buildReport', () => {
  it('names the class by name, else by the constructor of a subclass that kept "Error"', () => {
    class PaymentFailed extends Error {}
    class Named extends Error {
      override name = 'CustomName';
    }
    expect(errorClassOf(new PaymentFailed('x'))).toBe('PaymentFailed');
    expect(errorClassOf(new Named('x'))).toBe('CustomName');
    expect(errorClassOf(new TypeError('x'))).toBe('TypeError');
    expect(errorClassOf(new Error('x'))).toBe('Error');
    expect(errorClassOf('text')).toBe('NonError');
    expect(errorClassOf(null)).toBe('NonError');
  });

  it('drops the whole header of a multi-line message, keeping frames only', () => {
    const error = new Error('line one\nline two');
    const frames = backtraceOf(error.stack);
    expect(frames[0]).toMatch(/^at /);
    expect(frames).not.toContain('line two');
    expect(backtraceOf('Custom: header\nframe a\n\nframe b')).toEqual(['frame a', 'frame b']);
  });

  it('fills defaults and request fields, cuts long values, omits absent ones', () => {
    const report = buildReport(
      new Error('m'.repeat(2_000)),
      { environment: 'production', appVersion: '2.0.0' },
      { user: 'u1' },
      { request_method: 'GET', url: 'http://x/y' },
      new Date('2030-01-02T03:04:05.000Z'),
    );
    expect(report.message).toHaveLength(1_000);
    expect(report).toMatchObject({
      error_class: 'Error',
      environment: 'production',
      app_version: '2.0.0',
      context: { user: 'u1' },
      request_method: 'GET',
      url: 'http://x/y',
      occurred_at: '2030-01-02T03:04:05.000Z',
    });
    expect('request_path' in report).toBe(false);
    expect(buildReport(42, {}).message).toBe('42');
  });
});

describe('Throttle', () => {
  it('lets max through in any sliding window', () => {
    const throttle = new Throttle(2, 1_000);
    expect([throttle.take(0), throttle.take(100), throttle.take(200)]).toEqual([true, true, false]);
    expect(throttle.take(999)).toBe(false);
    expect(throttle.take(1_000)).toBe(true);
    expect(throttle.take(1_050)).toBe(false);
    expect(throttle.take(1_100)).toBe(true);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, clamps, and defaults to 60 s', () => {
    expect(retryAfterMs('1')).toBe(1_000);
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs('99999')).toBe(600_000);
    expect(retryAfterMs(null)).toBe(60_000);
    expect(retryAfterMs('soon')).toBe(60_000);
  });
});
