import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../src/decode/sentry-envelope.js';
import { readSentryEvent, sentryReport, sentrySource } from '../src/decode/sentry-event.js';
import { decodeStore } from '../src/decode/sentry-store.js';
import { deflateSync } from 'node:zlib';

const receivedAt = new Date('2026-11-25T12:00:00Z');

const report = (raw: unknown) => sentryReport(readSentryEvent(raw)!, receivedAt);

describe('a Sentry event as a SPEC.md report', () => {
  it('maps the raised exception, frames innermost first, request, release, context, time', () => {
    const stored = report({
      event_id: 'ab'.repeat(16),
      timestamp: 1_764_072_000.5,
      platform: 'python',
      release: 'billing@3.1.0',
      environment: 'production',
      level: 'error',
      exception: {
        values: [
          { type: 'KeyError', value: "'id'" }, // the cause
          {
            type: 'LookupFailed',
            value: 'order 7 not found',
            stacktrace: {
              frames: [
                { filename: 'app.py', function: '<module>', lineno: 40 },
                'not a frame',
                { abs_path: '/srv/orders.py', function: 'find', lineno: 12, colno: 4 },
              ],
            },
          },
        ],
      },
      request: { url: 'https://shop.test/orders/7?x=1', method: 'GET' },
      tags: { plan: 'pro' },
      user: { id: 'u1' },
      contexts: { runtime: { name: 'CPython' } },
      extra: { attempt: 2 },
      sdk: { name: 'sentry.python', version: '1.9.10' },
    });
    expect(stored).toEqual({
      error_class: 'LookupFailed',
      message: 'order 7 not found',
      backtrace: ['/srv/orders.py:12:4:in find', 'app.py:40:in <module>'],
      url: 'https://shop.test/orders/7?x=1',
      request_method: 'GET',
      request_path: '/orders/7',
      environment: 'production',
      app_version: 'billing@3.1.0',
      // Sentry's "additional data"; tags, user, contexts, level and sdk are the detail's.
      context: { attempt: 2 },
      occurred_at: '2025-11-25T12:00:00.500Z',
      source: 'python',
    });
  });

  it('a message event: logentry.formatted, else message; its own stack or the crashed thread', () => {
    expect(
      report({ logentry: { formatted: 'Disk 91% full', message: 'Disk %s full' } }),
    ).toMatchObject({ error_class: 'UnknownError', message: 'Disk 91% full', backtrace: [] });
    expect(report({ message: { message: 'plain' } }).message).toBe('plain');
    expect(
      report({
        message: 'with a thread',
        threads: {
          values: [
            { crashed: false, stacktrace: { frames: [{ filename: 'idle.rb', lineno: 1 }] } },
            { crashed: true, stacktrace: { frames: [{ filename: 'boom.rb', lineno: 9 }] } },
          ],
        },
      }).backtrace,
    ).toEqual(['boom.rb:9']);
  });

  it('reads a legacy exception list, and fields of the wrong type as absent', () => {
    expect(
      report({
        exception: [{ type: 'RuntimeError', value: 'old client' }],
        release: 12,
        environment: ['x'],
        request: 'nope',
      }),
    ).toMatchObject({
      error_class: 'RuntimeError',
      message: 'old client',
      app_version: null,
      environment: null,
      url: null,
    });
  });

  it.each([
    [{ sdk: { name: 'sentry.javascript.node' } }, 'node'],
    [{ sdk: { name: 'sentry.javascript.nextjs' }, platform: 'node' }, 'node'],
    [{ sdk: { name: 'sentry.javascript.nextjs' }, platform: 'javascript' }, 'js'],
    [{ sdk: { name: 'sentry.javascript.sveltekit' }, platform: 'node' }, 'node'],
    [{ sdk: { name: 'sentry.javascript.bun' }, platform: 'javascript' }, 'node'],
    [{ sdk: { name: 'sentry.javascript.browser' } }, 'js'],
    [{ sdk: { name: 'sentry.javascript.react' } }, 'js'],
    [{ sdk: { name: 'sentry.javascript.react-native' } }, 'mobile'],
    [{ sdk: { name: 'sentry.cocoa' } }, 'mobile'],
    [{ sdk: { name: 'sentry.java.android' } }, 'mobile'],
    [{ sdk: { name: 'sentry.dart.flutter' } }, 'mobile'],
    [{ sdk: { name: 'sentry.python' } }, 'python'],
    [{ sdk: { name: 'raven-ruby' } }, 'ruby'],
    [{ sdk: { name: 'sentry.ruby' } }, 'ruby'],
    [{ sdk: { name: 'sentry.php' } }, 'php'],
    [{ platform: 'javascript' }, 'js'],
    [{ platform: 'php' }, 'php'],
    [{ sdk: { name: 'sentry.go' }, platform: 'go' }, 'api'],
    [{}, 'api'],
  ] as const)('%j -> %s', (event, source) => {
    expect(sentrySource(event)).toBe(source);
  });
});

describe('the edge decoders', () => {
  it('reads the envelope header event_id and dsn key; skips other items by their length', () => {
    const session = '{"sid":"x","status":"ok"}';
    const body = Buffer.from(
      [
        `{"event_id":"${'CD'.repeat(16)}","dsn":"https://pk_abc@ferry.test/1"}`,
        `{"type":"session","length":${Buffer.byteLength(session)}}`,
        session,
        '{"type":"attachment","length":3}',
        '\n\n\n',
        '{"type":"event"}',
        '{"exception":{"values":[{"type":"E","value":"é"}]}}',
      ].join('\n'),
    );
    const decoded = decodeEnvelope(body);
    expect(decoded.eventId).toBe('cd'.repeat(16));
    expect(decoded.dsnKey).toBe('pk_abc');
    expect(decoded.event?.exception?.[0]?.value).toBe('é');
  });

  it('reads a raven body: base64 of zlib-deflated JSON', () => {
    const json = JSON.stringify({
      event_id: 'e'.repeat(32),
      exception: { values: [{ type: 'X' }] },
    });
    const decoded = decodeStore(Buffer.from(deflateSync(json).toString('base64')), 1024 * 1024);
    expect(decoded.eventId).toBe('e'.repeat(32));
    expect(decoded.event?.exception?.[0]?.type).toBe('X');
  });
});
