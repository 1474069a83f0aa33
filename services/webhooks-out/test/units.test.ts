import { describe, expect, it } from 'vitest';
import { checkTargetUrl, refusedAddressReason } from '@ferry/core';
import { Webhook } from 'standardwebhooks';
import { loadWebhooksOutSettings } from '../src/config.js';
import { nextRetryDelayMs, parseRetryAfter, RETRY_AFTER_CAP_MS } from '../src/schedule.js';
import { deliveryHeaders } from '../src/signing.js';
import { createSentPositions } from '../src/sent-positions.js';

const SCHEDULE = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
const failed = (attempts: number, extra: Partial<Parameters<typeof nextRetryDelayMs>[0]> = {}) => ({
  attempts,
  statusCode: 500,
  timedOut: false,
  retryAfterMs: null,
  ...extra,
});

describe('retry schedule', () => {
  it('is the DESIGN.md schedule by default: 7 tries', () => {
    expect(loadWebhooksOutSettings({}).retryScheduleMs).toEqual(SCHEDULE);
    expect(
      loadWebhooksOutSettings({ WEBHOOK_RETRY_SCHEDULE_MS: '0, 10,20' }).retryScheduleMs,
    ).toEqual([0, 10, 20]);
    expect(() => loadWebhooksOutSettings({ WEBHOOK_RETRY_SCHEDULE_MS: 'soon' })).toThrow(
      /WEBHOOK_RETRY_SCHEDULE_MS/,
    );
  });

  it('waits the next step with +-20% jitter, and gives up after the 7th try', () => {
    for (let attempts = 1; attempts < 7; attempts++) {
      const base = SCHEDULE[attempts]!;
      expect(nextRetryDelayMs(failed(attempts), SCHEDULE, 60_000, () => 0)).toBe(
        Math.round(base * 0.8),
      );
      expect(nextRetryDelayMs(failed(attempts), SCHEDULE, 60_000, () => 1)).toBe(
        Math.round(base * 1.2),
      );
    }
    expect(nextRetryDelayMs(failed(7), SCHEDULE, 60_000)).toBeNull();
  });

  it('waits at least 60 s after a 429 or a timeout, and honours Retry-After up to a day', () => {
    expect(nextRetryDelayMs(failed(1, { statusCode: 429 }), SCHEDULE, 60_000, () => 0.5)).toBe(
      60_000,
    );
    expect(
      nextRetryDelayMs(
        failed(1, { statusCode: null, timedOut: true }),
        SCHEDULE,
        60_000,
        () => 0.5,
      ),
    ).toBe(60_000);
    expect(
      nextRetryDelayMs(failed(1, { retryAfterMs: 120_000 }), SCHEDULE, 60_000, () => 0.5),
    ).toBe(120_000);
    // A shorter Retry-After does not shorten the schedule.
    expect(nextRetryDelayMs(failed(2, { retryAfterMs: 1_000 }), SCHEDULE, 60_000, () => 0.5)).toBe(
      300_000,
    );
    expect(
      nextRetryDelayMs(
        failed(1, { retryAfterMs: 10 * RETRY_AFTER_CAP_MS }),
        SCHEDULE,
        60_000,
        () => 0.5,
      ),
    ).toBe(RETRY_AFTER_CAP_MS);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThan(28_000);
    expect(parseRetryAfter('whenever')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });
});

describe('SSRF address check', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['192.168.1.1', /private/],
    ['169.254.10.10', /linkLocal/],
    ['169.254.169.254', /metadata/],
    ['fd00:ec2::254', /metadata/],
    ['100.64.0.1', /carrierGradeNat/],
    ['224.0.0.1', /multicast/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['fe80::1', /linkLocal/],
    ['fc00::1', /uniqueLocal/],
  ])('refuses %s', (address, reason) => {
    expect(refusedAddressReason(address)).toMatch(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('accepts %s', (address) => {
    expect(refusedAddressReason(address)).toBeNull();
  });

  it('refuses hostnames that resolve privately, schemes other than http(s), unless allowed', async () => {
    const off = { allowPrivateTargets: false };
    expect(await checkTargetUrl('http://localhost:8080/x', off)).toMatchObject({ ok: false });
    expect(await checkTargetUrl('http://127.0.0.1/x', off)).toMatchObject({ ok: false });
    expect(await checkTargetUrl('http://[::1]/x', off)).toMatchObject({ ok: false });
    expect(await checkTargetUrl('http://169.254.169.254/latest/meta-data', off)).toMatchObject({
      ok: false,
    });
    // A custom resolver stands in for DNS: one private answer among public ones is enough.
    const rebinding = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]);
    expect(await checkTargetUrl('https://hooks.example.com/x', off, rebinding)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/10\.0\.0\.7/) as string,
    });
    const publicOnly = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]);
    expect(await checkTargetUrl('https://hooks.example.com/x', off, publicOnly)).toEqual({
      ok: true,
      url: 'https://hooks.example.com/x',
    });
    expect(await checkTargetUrl('ftp://example.com/x', off)).toMatchObject({ ok: false });
    expect(await checkTargetUrl('http://localhost:8080/x', { allowPrivateTargets: true })).toEqual({
      ok: true,
      url: 'http://localhost:8080/x',
    });
  });
});

describe('signing headers', () => {
  it('verify with the standardwebhooks library, with two signatures during a rotation', () => {
    const current = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const previous = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    const body = JSON.stringify({ event: 'message_created', ok: 'é' });
    const headers = deliveryHeaders(
      { current, previous },
      { id: 'dlv_x', event: 'message_created', body },
    );
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});

describe('sent positions', () => {
  it('only move forward, and forget the least recently advanced hook past capacity', () => {
    const positions = createSentPositions(2);
    positions.advance('a', new Date(2_000));
    positions.advance('a', new Date(1_000));
    expect(positions.get('a')).toEqual(new Date(2_000));
    positions.advance('b', new Date(5_000));
    positions.advance('a', new Date(3_000));
    positions.advance('c', new Date(7_000));
    expect(positions.get('b')).toBeUndefined();
    expect(positions.get('a')).toEqual(new Date(3_000));
    expect(positions.get('c')).toEqual(new Date(7_000));
  });
});
