import { describe, expect, it } from 'vitest';
import { LIMITS, SOURCES, coerceReport, type StoredReport } from '../src/report.js';

const receivedAt = new Date('2026-11-22T12:00:00.000Z');
const RECEIVED = receivedAt.toISOString();
const coerce = (raw: unknown, batchSource?: unknown): StoredReport | undefined =>
  coerceReport(raw, batchSource, receivedAt);
const valid = (raw: Record<string, unknown>, batchSource?: unknown): StoredReport => {
  const report = coerce(raw, batchSource);
  if (!report) throw new Error('expected a valid report');
  return report;
};

describe('a whole report', () => {
  it('stores every field of the table', () => {
    expect(
      valid({
        error_class: 'NoMethodError',
        message: "undefined method 'name' for nil",
        backtrace: ['app/models/user.rb:10:in `name`', 'app/controllers/users.rb:5'],
        url: 'https://app.example.test/users/1',
        request_method: 'GET',
        request_path: '/users/1',
        environment: 'production',
        app_version: '1.4.2',
        context: { user_id: 1, plan: 'pro' },
        occurred_at: '2026-11-22T11:59:00Z',
        source: 'ruby',
        unknown_field: 'ignored',
      }),
    ).toEqual({
      error_class: 'NoMethodError',
      message: "undefined method 'name' for nil",
      backtrace: ['app/models/user.rb:10:in `name`', 'app/controllers/users.rb:5'],
      url: 'https://app.example.test/users/1',
      request_method: 'GET',
      request_path: '/users/1',
      environment: 'production',
      app_version: '1.4.2',
      context: { user_id: 1, plan: 'pro' },
      occurred_at: '2026-11-22T11:59:00.000Z',
      source: 'ruby',
    });
  });

  it('fills what an empty report leaves out', () => {
    expect(valid({})).toEqual({
      error_class: 'UnknownError',
      message: '',
      backtrace: [],
      url: null,
      request_method: null,
      request_path: null,
      environment: null,
      app_version: null,
      context: {},
      occurred_at: RECEIVED,
      source: 'api',
    });
  });

  it('fails validation when it is not a plain object', () => {
    for (const raw of [null, undefined, 'boom', 42, true, [], [{ error_class: 'A' }]]) {
      expect(coerce(raw)).toBeUndefined();
    }
  });

  it('fails validation when a string field holds an object or an array', () => {
    for (const field of ['error_class', 'message', 'url', 'environment', 'app_version']) {
      expect(coerce({ [field]: { a: 1 } })).toBeUndefined();
      expect(coerce({ [field]: ['a'] })).toBeUndefined();
    }
  });

  it('treats null like an absent field', () => {
    const report = valid({ message: null, url: null, backtrace: null, context: null });
    expect(report).toMatchObject({ message: '', url: null, backtrace: [], context: {} });
  });
});

describe('error_class', () => {
  it('is cut to 200', () => {
    expect(valid({ error_class: 'E'.repeat(250) }).error_class).toBe('E'.repeat(200));
  });

  it('becomes UnknownError when blank', () => {
    for (const blank of [undefined, null, '', '   ', '\t\n']) {
      expect(valid({ error_class: blank }).error_class).toBe('UnknownError');
    }
  });

  it('is kept as given otherwise (no trimming)', () => {
    expect(valid({ error_class: ' TypeError' }).error_class).toBe(' TypeError');
  });

  it('reads a number as its string', () => {
    expect(valid({ error_class: 500 }).error_class).toBe('500');
  });
});

describe('string fields', () => {
  it.each([
    ['message', LIMITS.message],
    ['url', LIMITS.url],
    ['request_method', LIMITS.requestMethod],
    ['request_path', LIMITS.requestPath],
    ['environment', LIMITS.environment],
    ['app_version', LIMITS.appVersion],
  ] as const)('%s is cut to %d', (field, cap) => {
    expect(valid({ [field]: 'x'.repeat(cap) })[field]).toBe('x'.repeat(cap));
    expect(valid({ [field]: 'x'.repeat(cap + 1) })[field]).toBe('x'.repeat(cap));
  });

  it('reads numbers and booleans as strings', () => {
    expect(valid({ message: 42, app_version: 1.5, environment: false })).toMatchObject({
      message: '42',
      app_version: '1.5',
      environment: 'false',
    });
  });

  it('never splits a surrogate pair at the cap', () => {
    // 10 is the cap: the pair would be code units 10 and 11.
    expect(valid({ request_method: 'POSTPOSTX😀' }).request_method).toBe('POSTPOSTX');
    expect(valid({ request_method: 'POSTPOST😀' }).request_method).toBe('POSTPOST😀');
  });

  it('replaces NUL and lone surrogates, which Postgres cannot store', () => {
    expect(valid({ message: 'a\u0000b\ud800' }).message).toBe('a\ufffdb\ufffd');
  });
});

describe('backtrace', () => {
  it('takes an array of lines or a newline-separated string', () => {
    const lines = ['a.rb:1', 'b.rb:2', 'c.rb:3'];
    expect(valid({ backtrace: lines }).backtrace).toEqual(lines);
    expect(valid({ backtrace: 'a.rb:1\nb.rb:2\r\nc.rb:3\n' }).backtrace).toEqual(lines);
  });

  it('keeps the first 30 lines', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `frame ${i}`);
    expect(valid({ backtrace: lines }).backtrace).toEqual(lines.slice(0, 30));
  });

  it('cuts each line to 400', () => {
    expect(valid({ backtrace: ['x'.repeat(450), 'y'] }).backtrace).toEqual(['x'.repeat(400), 'y']);
  });

  it('keeps at most 8,000 in all: the crossing line is cut, later lines dropped', () => {
    // 25 lines of 400 = 10,000: 20 whole lines reach 8,000 exactly.
    const lines = Array.from({ length: 25 }, (_, i) => String(i % 10).repeat(400));
    const kept = valid({ backtrace: lines }).backtrace;
    expect(kept).toEqual(lines.slice(0, 20));
    // 300-character lines: 26 whole (7,800), the 27th cut to 200, nothing after.
    const shorter = Array.from({ length: 30 }, () => 'z'.repeat(300));
    const cut = valid({ backtrace: shorter }).backtrace;
    expect(cut).toHaveLength(27);
    expect(cut[26]).toBe('z'.repeat(200));
    expect(cut.join('')).toHaveLength(8000);
  });

  it('drops blank lines, which are no frames', () => {
    expect(valid({ backtrace: ['', 'a.rb:1', '   ', null, 'b.rb:2'] }).backtrace).toEqual([
      'a.rb:1',
      'b.rb:2',
    ]);
  });

  it('drops a line that is blank within its first 400 characters', () => {
    expect(valid({ backtrace: [`${' '.repeat(400)}x`, 'a.rb:1'] }).backtrace).toEqual(['a.rb:1']);
  });

  it('reads number items as strings', () => {
    expect(valid({ backtrace: [1, true] }).backtrace).toEqual(['1', 'true']);
  });

  it('fails the report when it is neither an array nor a string', () => {
    expect(coerce({ backtrace: 42 })).toBeUndefined();
    expect(coerce({ backtrace: { 0: 'a.rb:1' } })).toBeUndefined();
    expect(coerce({ backtrace: true })).toBeUndefined();
  });

  it('fails the report when a kept line is an object; items past the 30th are not looked at', () => {
    expect(coerce({ backtrace: ['a.rb:1', { file: 'b.rb' }] })).toBeUndefined();
    const thirty = Array.from({ length: 30 }, (_, i) => `f${i}`);
    expect(valid({ backtrace: [...thirty, { file: 'b.rb' }] }).backtrace).toEqual(thirty);
  });
});

describe('context', () => {
  it('keeps the first 30 keys in order', () => {
    const input = Object.fromEntries(Array.from({ length: 35 }, (_, i) => [`k${i}`, i]));
    const stored = valid({ context: input }).context;
    expect(Object.keys(stored)).toEqual(Array.from({ length: 30 }, (_, i) => `k${i}`));
  });

  it('cuts keys to 60; on a collision after the cut the first key wins', () => {
    const long = 'k'.repeat(60);
    const stored = valid({ context: { [`${long}A`]: 1, [`${long}B`]: 2, short: 3 } }).context;
    expect(stored).toEqual({ [long]: 1, short: 3 });
  });

  it('cuts string values to 500 and keeps numbers, booleans and null as they are', () => {
    const stored = valid({
      context: { s: 'v'.repeat(600), n: 12.5, big: 1e300, t: true, f: false, z: null },
    }).context;
    expect(stored).toEqual({ s: 'v'.repeat(500), n: 12.5, big: 1e300, t: true, f: false, z: null });
  });

  it('keeps nested objects and arrays as given, long strings in them included', () => {
    const nestedValue = { deep: { list: [1, 'w'.repeat(900), { x: null }] }, keys: 'a' };
    const stored = valid({ context: { nested: nestedValue, list: ['q'.repeat(700)] } }).context;
    expect(stored).toEqual({ nested: nestedValue, list: ['q'.repeat(700)] });
  });

  it('keeps a __proto__ key as a plain key', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    const stored = valid({ context: input }).context;
    expect(Object.keys(stored)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(JSON.stringify(stored)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('fails the report when it is not an object', () => {
    for (const context of [[], [1, 2], 'user=1', 42, true]) {
      expect(coerce({ context })).toBeUndefined();
    }
  });

  it('keeps a report nested deeper than the cap, its deepest level replaced with a marker', () => {
    const marker = `[truncated: nested deeper than ${LIMITS.contextDepth}]`;
    const wrap = (inner: unknown, levels: number, as: 'array' | 'object'): unknown => {
      let value = inner;
      for (let i = 0; i < levels; i++) value = as === 'array' ? [value] : { k: value, n: i };
      return value;
    };
    // Exactly at the cap: kept as given, scalars on the deepest level included.
    const ok = wrap('bottom', LIMITS.contextDepth, 'array');
    expect(valid({ context: { ok } }).context).toEqual({ ok });
    // One level deeper: the level past the cap becomes the marker, everything above it is kept.
    const tooDeep = wrap('bottom', LIMITS.contextDepth + 1, 'array');
    expect(valid({ context: { deep: tooDeep } }).context).toEqual({
      deep: wrap(marker, LIMITS.contextDepth, 'array'),
    });
    const objects = valid({ context: { deep: wrap({ x: 1 }, 1_000, 'object'), top: 'kept' } });
    let level: unknown = objects.context.deep;
    for (let i = 0; i < LIMITS.contextDepth - 1; i++) level = (level as { k: unknown }).k;
    expect(level).toEqual({ k: marker, n: 1_000 - LIMITS.contextDepth });
    expect(objects.context.top).toBe('kept');
  });

  it('makes nested strings and keys storable', () => {
    expect(valid({ context: { a: { 'k\u0000': ['\ud800x'] } } }).context).toEqual({
      a: { 'k\ufffd': ['\ufffdx'] },
    });
  });
});

describe('occurred_at', () => {
  it.each([
    ['an ISO string with offset', '2026-11-22T13:30:00+02:00', '2026-11-22T11:30:00.000Z'],
    ['an ISO string without offset, as UTC', '2026-11-22T10:00:00', '2026-11-22T10:00:00.000Z'],
    ['a date only', '2026-11-21', '2026-11-21T00:00:00.000Z'],
    ['an RFC 2822 string', 'Sun, 22 Nov 2026 10:00:00 GMT', '2026-11-22T10:00:00.000Z'],
    ['epoch milliseconds', Date.parse('2026-11-22T10:00:00Z'), '2026-11-22T10:00:00.000Z'],
    ['epoch seconds', Date.parse('2026-11-22T10:00:00Z') / 1000, '2026-11-22T10:00:00.000Z'],
    [
      'fractional seconds',
      Date.parse('2026-11-22T10:00:00Z') / 1000 + 0.25,
      '2026-11-22T10:00:00.250Z',
    ],
    [
      'a numeric string',
      String(Date.parse('2026-11-22T10:00:00Z') / 1000),
      '2026-11-22T10:00:00.000Z',
    ],
  ])('reads %s', (_what, input, expected) => {
    expect(valid({ occurred_at: input }).occurred_at).toBe(expected);
  });

  it('keeps a time up to one hour in the future', () => {
    const inAnHour = new Date(receivedAt.getTime() + LIMITS.futureSkewMs).toISOString();
    expect(valid({ occurred_at: inAnHour }).occurred_at).toBe(inAnHour);
  });

  it('falls back to the time of receipt when more than an hour in the future', () => {
    const later = new Date(receivedAt.getTime() + LIMITS.futureSkewMs + 1).toISOString();
    expect(valid({ occurred_at: later }).occurred_at).toBe(RECEIVED);
    expect(valid({ occurred_at: '2099-01-01T00:00:00Z' }).occurred_at).toBe(RECEIVED);
  });

  it('falls back to the time of receipt when unparseable, absent or before 1970', () => {
    for (const input of ['yesterday', '', '2026-13-45', true, { at: 1 }, null, undefined, -5]) {
      expect(valid({ occurred_at: input }).occurred_at).toBe(RECEIVED);
    }
    expect(valid({ occurred_at: '1969-12-31T23:59:59Z' }).occurred_at).toBe(RECEIVED);
    expect(valid({ occurred_at: 8.64e15 }).occurred_at).toBe(RECEIVED);
  });
});

describe('source', () => {
  it('keeps each of the seven', () => {
    for (const source of SOURCES) expect(valid({ source }).source).toBe(source);
  });

  it('records any other value as api', () => {
    for (const source of ['go', 'JS', ' ruby', '', 7, true, { a: 1 }, ['js']]) {
      expect(valid({ source }).source).toBe('api');
    }
  });

  it('takes the batch source when the report has none', () => {
    expect(valid({}, 'node').source).toBe('node');
    expect(valid({ source: null }, 'python').source).toBe('python');
    expect(valid({}, 'cobol').source).toBe('api');
  });

  it("lets a report's own source override the batch source, an unknown one included", () => {
    expect(valid({ source: 'php' }, 'node').source).toBe('php');
    expect(valid({ source: 'cobol' }, 'node').source).toBe('api');
  });
});
