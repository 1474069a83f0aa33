import { describe, expect, it } from 'vitest';
import { formatLogentry, readSentryEvent, sentryReport } from '../src/decode/sentry-event.js';
import { sentryGrouping } from '../src/decode/sentry-grouping.js';
import { fingerprint } from '../src/fingerprint.js';

const receivedAt = new Date('2026-11-28T12:00:00Z');

/** The group key of one Sentry event, as the accept path computes it. */
function groupOf(raw: unknown): string {
  const event = readSentryEvent(raw)!;
  return fingerprint(sentryReport(event, receivedAt), sentryGrouping(event));
}

const frame = (file: string, fn: string, lineno: number, extra: object = {}) => ({
  filename: file,
  function: fn,
  lineno,
  ...extra,
});

describe("a Sentry event's group: the app's frame, else the message's template", () => {
  it('takes the innermost in_app frame when the SDK marked any', () => {
    const raised = (appLine: number, libLine: number) => ({
      exception: {
        values: [
          {
            type: 'TypeError',
            value: 'x is undefined',
            stacktrace: {
              frames: [
                frame('app/cart.js', 'add', appLine, { in_app: true }),
                frame('node_modules/lodash/get.js', 'get', libLine, { in_app: false }),
              ],
            },
          },
        ],
      },
    });
    // A library's line moving does not split the group; the app's line does.
    expect(groupOf(raised(10, 1))).toBe(groupOf(raised(10, 2)));
    expect(groupOf(raised(10, 1))).not.toBe(groupOf(raised(11, 1)));
  });

  it('else the innermost frame that is not the SDK’s own (sentry, raven, @sentry, sentry_sdk)', () => {
    const message = (caller: string, sdk: object) => ({
      message: 'payment declined',
      threads: [{ stacktrace: { frames: [frame('shop.rb', caller, caller.length), { ...sdk }] } }],
    });
    for (const sdk of [
      frame('sentry/hub.rb', 'capture_message', 124),
      { abs_path: '/gems/sentry-ruby-core-5.3.0/lib/sentry-ruby.rb', function: 'capture_message' },
      { module: 'sentry_sdk.hub', function: 'capture_message' },
      { module: 'raven.base', function: 'capture' },
      frame('/srv/node_modules/@sentry/core/cjs/exports.js', 'captureMessage', 1),
      { abs_path: '/go/pkg/mod/github.com/getsentry/sentry-go@v0.11.0/hub.go', function: 'Cap' },
    ]) {
      expect(groupOf(message('checkout', sdk))).not.toBe(groupOf(message('refund', sdk)));
    }
  });

  it('else the message decides, and a log line by its template', () => {
    const sdkOnly = { stacktrace: { frames: [frame('sentry/hub.rb', 'capture_message', 124)] } };
    expect(groupOf({ message: 'a', ...sdkOnly })).not.toBe(groupOf({ message: 'b', ...sdkOnly }));
    const logged = (param: number) => ({
      logentry: { message: 'order %s failed', params: [param] },
    });
    expect(groupOf(logged(42))).toBe(groupOf(logged(43)));
    expect(sentryReport(readSentryEvent(logged(42))!, receivedAt).message).toBe('order 42 failed');
  });

  it('points at the same frame when a blank frame is left out of the stored backtrace', () => {
    const raised = (appLine: number) => ({
      exception: [
        {
          type: 'E',
          stacktrace: {
            frames: [
              frame('app/cart.js', 'add', appLine, { in_app: true }),
              { filename: '' },
              frame('node_modules/lib.js', 'get', 1, { in_app: false }),
            ],
          },
        },
      ],
    });
    expect(groupOf(raised(10))).not.toBe(groupOf(raised(11)));
  });

  it('reads sentry-go’s bare-list threads like the object form', () => {
    const event = readSentryEvent({
      message: 'attached',
      threads: [{ stacktrace: { frames: [frame('main.go', 'main.run', 9, { in_app: true })] } }],
    })!;
    expect(sentryReport(event, receivedAt).backtrace).toEqual(['main.go:9:in main.run']);
  });
});

describe('formatLogentry: a log template with its params, as Python would print it', () => {
  it.each([
    ['order %s failed', [42], 'order 42 failed'],
    ['%s of %d at %.2f%%', ['3', 7.9, 1.5], '3 of 7 at 1.50%'],
    ['user %(name)s in %(team)s', { name: 'ada', team: 'ops' }, 'user ada in ops'],
    ['%s and %s', ['one'], 'one and %s'],
    ['%(missing)s', { other: 1 }, '%(missing)s'],
    ['flags %s %s %s', [true, null, { a: 1 }], 'flags True None {"a":1}'],
    ['no params %s', undefined, 'no params %s'],
  ])('%s with %j', (template, params, expected) => {
    expect(formatLogentry(template, params as never)).toBe(expected);
  });
});
