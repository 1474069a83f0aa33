import { describe, expect, it } from 'vitest';
import { DETAIL_LIMITS, occurrenceDetailSchema } from '@ferry/workspace';
import { sentryDetail } from '../src/decode/sentry-detail.js';
import { eventFrames, readSentryEvent } from '../src/decode/sentry-event.js';
import { scrubDetail } from '../src/scrub-report.js';

/** An event's structured detail, as the envelope and store routes build it. */
function detailOf(raw: unknown) {
  const event = readSentryEvent(raw)!;
  return sentryDetail(event, eventFrames(event));
}

describe("a Sentry event's structured detail (issue 41)", () => {
  it('keeps the chain, frames innermost first with code and in_app, and each part by name', () => {
    const detail = detailOf({
      release: 'shop@2.0.0+build.77',
      dist: 'web',
      level: 'error',
      logger: 'billing',
      server_name: 'web-3',
      sdk: { name: 'sentry.python', version: '1.9.10' },
      exception: {
        values: [
          { type: 'KeyError', value: "'id'" },
          {
            type: 'LookupFailed',
            value: 'order 7 not found',
            module: 'orders',
            stacktrace: {
              frames: [
                { filename: 'app.py', function: '<module>', lineno: 40, in_app: true },
                null,
                {
                  abs_path: '/srv/orders.py',
                  function: 'find',
                  lineno: '12',
                  colno: 4,
                  in_app: true,
                  pre_context: ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
                  context_line: '    raise LookupFailed(id)',
                  post_context: ['x'],
                },
              ],
            },
          },
        ],
      },
      breadcrumbs: {
        values: [{ timestamp: 1_764_072_000, category: 'query', message: 'select 1' }],
      },
      tags: [
        ['plan', 'pro'],
        ['seats', 3],
      ],
      user: { id: 42, email: 'a@b.test', ip_address: '192.0.2.1', extra_field: 'dropped' },
      request: {
        method: 'GET',
        url: 'https://shop.test/orders/7',
        query_string: { page: '2' },
        headers: [['Accept', 'text/html']],
      },
      contexts: { os: { name: 'Linux', version: '6.1' }, trace: { span_id: 'x' } },
      debug_meta: {
        images: [
          { type: 'sourcemap', code_file: 'https://shop.test/app.min.js', debug_id: 'ABC-1' },
          { type: 'macho', code_file: 'x', debug_id: 'y' },
        ],
      },
    });
    expect(occurrenceDetailSchema.parse(detail)).toEqual(detail);
    expect(detail.exceptions!.map((e) => e.type)).toEqual(['KeyError', 'LookupFailed']);
    expect(detail.exceptions![1]!.frames).toEqual([
      {
        function: 'find',
        file: '/srv/orders.py',
        line: 12,
        column: 4,
        in_app: true,
        // Five lines either side at most: the nearest ones.
        pre_context: ['c', 'd', 'e', 'f', 'g'],
        context_line: '    raise LookupFailed(id)',
        post_context: ['x'],
      },
      { function: '<module>', file: 'app.py', line: 40, in_app: true },
    ]);
    expect(detail).toMatchObject({
      breadcrumbs: [
        { timestamp: '2025-11-25T12:00:00.000Z', category: 'query', message: 'select 1' },
      ],
      tags: { plan: 'pro', seats: '3' },
      user: { id: '42', email: 'a@b.test', ip_address: '192.0.2.1' },
      request: { method: 'GET', query_string: 'page=2', headers: [['Accept', 'text/html']] },
      contexts: { os: { name: 'Linux', version: '6.1' } },
      level: 'error',
      logger: 'billing',
      server_name: 'web-3',
      sdk: { name: 'sentry.python', version: '1.9.10' },
      release: 'shop@2.0.0+build.77',
      dist: 'web',
      debug_images: [{ code_file: 'https://shop.test/app.min.js', debug_id: 'abc-1' }],
    });
    expect(detail.user).not.toHaveProperty('extra_field');
    expect(detail.contexts).not.toHaveProperty('trace');
    expect(detail).not.toHaveProperty('truncated');
  });

  it("a message event keeps its own stack; sentry-go's bare-list threads too", () => {
    const frames = [{ function: 'main.chargeCard', abs_path: '/app/main.go', lineno: 9 }];
    expect(detailOf({ message: 'hi', stacktrace: { frames } }).frames).toEqual([
      { function: 'main.chargeCard', file: '/app/main.go', line: 9 },
    ]);
    expect(detailOf({ message: 'hi', threads: [{ stacktrace: { frames } }] }).frames).toHaveLength(
      1,
    );
    expect(detailOf({ message: 'hi' })).not.toHaveProperty('frames');
  });

  it('keeps the last 100 breadcrumbs, and holds the whole to its total cap, saying what it cut', () => {
    const crumbs = Array.from({ length: 150 }, (_, i) => ({
      message: `step ${i} ${'x'.repeat(480)}`,
      data: { note: 'd'.repeat(900) },
    }));
    const detail = detailOf({ message: 'hi', breadcrumbs: crumbs });
    expect(detail.breadcrumbs!.at(-1)!.message).toMatch(/^step 149 /);
    expect(JSON.stringify(detail).length).toBeLessThanOrEqual(DETAIL_LIMITS.totalChars);
    expect(detail.truncated).toEqual([expect.stringMatching(/^breadcrumbs: \d+ oldest dropped/)]);
    // The newest stay: the cut is from the oldest end.
    expect(detail.breadcrumbs!.length).toBeGreaterThan(30);

    const huge = Array.from({ length: 10 }, (_, e) => ({
      type: `E${e}`,
      value: 'v'.repeat(1_000),
      stacktrace: {
        frames: Array.from({ length: 60 }, (_, f) => ({
          filename: `f${f}.js`,
          function: 'fn'.repeat(100),
          pre_context: Array(5).fill('c'.repeat(200)),
          context_line: 'l'.repeat(200),
          post_context: Array(5).fill('c'.repeat(200)),
        })),
      },
    }));
    const cut = detailOf({ exception: { values: huge } });
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(DETAIL_LIMITS.totalChars);
    expect(cut.truncated).toContain('code context dropped (total cap)');
    // The raised exception (the last) is the one kept when causes must go.
    expect(cut.exceptions!.at(-1)!.type).toBe('E9');
  });

  it('a breadcrumb whose data is too large keeps a marker; a part of the wrong shape is left out', () => {
    const detail = detailOf({
      message: 'hi',
      breadcrumbs: [{ data: { blob: 'b'.repeat(5_000) } }, 'not a crumb'],
      tags: 'not tags',
      user: ['no'],
      request: { headers: 7 },
    });
    expect(detail.breadcrumbs).toEqual([
      { data: expect.stringMatching(/^\[data dropped: \d+ characters of JSON/) as string },
    ]);
    expect(detail).not.toHaveProperty('tags');
    expect(detail).not.toHaveProperty('user');
    expect(detail).not.toHaveProperty('request');
  });

  it('scrubDetail filters by key, by query parameter, header pair, card number and bearer token', () => {
    const detail = scrubDetail(
      detailOf({
        message: 'hi',
        stacktrace: {
          frames: [
            { filename: 'a.py', context_line: 'token = "Bearer abc.def"  # 4111111111111111' },
          ],
        },
        tags: { session_id: 's', plan: 'pro' },
        request: {
          url: 'https://x.test/?password=p&page=1',
          query_string: 'password=p&page=1',
          headers: { Authorization: 'Bearer abc', Cookie: 'sid=1', Accept: '*/*' },
        },
        breadcrumbs: [{ message: 'paid 4111 1111 1111 1111', data: { apikey: 'k', n: 1 } }],
      }),
    );
    expect(detail.frames![0]!.context_line).toBe('token = "Bearer [Filtered]"  # [Filtered]');
    expect(detail.tags).toEqual({ session_id: '[Filtered]', plan: 'pro' });
    expect(detail.request).toEqual({
      url: 'https://x.test/?password=[Filtered]&page=1',
      query_string: 'password=[Filtered]&page=1',
      headers: [
        ['Authorization', '[Filtered]'],
        ['Cookie', '[Filtered]'],
        ['Accept', '*/*'],
      ],
    });
    expect(detail.breadcrumbs).toEqual([
      { message: 'paid [Filtered]', data: { apikey: '[Filtered]', n: 1 } },
    ]);
  });
});
