import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FILTERED,
  isSensitiveKey,
  maskQuery,
  scrubRules,
  scrubText,
  scrubValue,
} from '../src/scrub.js';

/** 4111 1111 1111 1111 and 5500-0000-0000-0004 are test card numbers (Luhn-valid). */
const VISA = '4111111111111111';

describe('the scrubber', () => {
  it('replaces the value of every key that contains a sensitive word, whatever it holds', () => {
    expect(
      scrubValue({
        password: 'hunter2',
        DB_PASSWD: 'x',
        client_secret: 'x',
        api_key: 'x',
        ApiKey: 'x',
        Authorization: 'Basic eA==',
        credentials: { user: 'a', pass: 'b' },
        mysql_pwd: 'x',
        privateKey: 'x',
        private_key: 'x',
        csrf_token: 'x',
        sessionId: 'x',
        ssn: '078-05-1120',
        Cookie: 'sid=1',
        'Set-Cookie': 'sid=1',
        plan: 'pro',
      }),
    ).toEqual({
      password: FILTERED,
      DB_PASSWD: FILTERED,
      client_secret: FILTERED,
      api_key: FILTERED,
      ApiKey: FILTERED,
      Authorization: FILTERED,
      credentials: FILTERED,
      mysql_pwd: FILTERED,
      privateKey: FILTERED,
      private_key: FILTERED,
      csrf_token: FILTERED,
      sessionId: FILTERED,
      ssn: FILTERED,
      Cookie: FILTERED,
      'Set-Cookie': FILTERED,
      plan: 'pro',
    });
  });

  it('finds card numbers, bearer tokens and sensitive query values inside any string', () => {
    expect(scrubText(`paid with ${VISA} today`)).toBe(`paid with ${FILTERED} today`);
    expect(scrubText('card 4111 1111 1111 1111 and 5500-0000-0000-0004')).toBe(
      `card ${FILTERED} and ${FILTERED}`,
    );
    // Not Luhn-valid, too short, or part of a longer number: kept.
    expect(scrubText('order 4111111111111112, id 123456789012, 41111111111111110000')).toBe(
      'order 4111111111111112, id 123456789012, 41111111111111110000',
    );
    expect(scrubText('sent Authorization: Bearer eyJhbGciOi.J9.x-y_z= to the API')).toBe(
      `sent Authorization: Bearer ${FILTERED} to the API`,
    );
    expect(scrubText('https://shop.test/pay?token=abc&item=7&Api%5FKey=k#top')).toBe(
      `https://shop.test/pay?token=${FILTERED}&item=7&Api%5FKey=${FILTERED}#top`,
    );
  });

  it('reads header lists as pairs, and walks nested objects and arrays', () => {
    expect(
      scrubValue({
        request: {
          headers: [
            ['Authorization', 'Bearer abc'],
            ['Accept', 'text/html'],
          ],
          breadcrumbs: [{ data: { url: '/login?password=x', note: `card ${VISA}` } }],
        },
      }),
    ).toEqual({
      request: {
        headers: [
          ['Authorization', FILTERED],
          ['Accept', 'text/html'],
        ],
        breadcrumbs: [{ data: { url: `/login?password=${FILTERED}`, note: `card ${FILTERED}` } }],
      },
    });
  });

  it('adds a workspace’s own words and keeps its safe fields as sent', () => {
    const rules = scrubRules({ keys: ['IBAN'], safeFields: ['session_country'] });
    expect(
      scrubValue({ customer_iban: 'DE89', session_country: 'DE', session: 'x' }, rules),
    ).toEqual({ customer_iban: FILTERED, session_country: 'DE', session: FILTERED });
  });

  it('a safe field is not judged by its name, but its card numbers, bearer tokens and credential headers still are', () => {
    const rules = scrubRules({ safeFields: ['session_note', 'authorization', 'cookie'] });
    expect(
      scrubValue(
        {
          session_note: { text: 'paid with 4111 1111 1111 1111', password: 'x' },
          headers: [
            ['Authorization', 'Basic dXNlcjpwdw=='],
            ['Cookie', 'sid=1'],
          ],
        },
        rules,
      ),
    ).toEqual({
      session_note: { text: `paid with ${FILTERED}`, password: FILTERED },
      headers: [
        ['Authorization', FILTERED],
        ['Cookie', FILTERED],
      ],
    });
  });

  it('filters the user’s IP (user field, context key, proxy headers) unless keepIp', () => {
    const given = {
      user: { id: 'u1', ip_address: '203.0.113.7' },
      client: { IP_Address: '203.0.113.7', forwarded_count: 2 },
      headers: [
        ['X-Forwarded-For', '203.0.113.7, 10.0.0.1'],
        ['X-Real-Ip', '203.0.113.7'],
        ['Forwarded', 'for=203.0.113.7'],
        ['Accept', 'text/html'],
      ],
      url: '/track?ip_address=203.0.113.7&page=2',
    };
    expect(scrubValue(given)).toEqual({
      user: { id: 'u1', ip_address: FILTERED },
      client: { IP_Address: FILTERED, forwarded_count: 2 },
      headers: [
        ['X-Forwarded-For', FILTERED],
        ['X-Real-Ip', FILTERED],
        ['Forwarded', FILTERED],
        ['Accept', 'text/html'],
      ],
      url: `/track?ip_address=${FILTERED}&page=2`,
    });
    expect(scrubValue(given, scrubRules({ keepIp: true }))).toEqual(given);
  });

  it('filters a card number sent as a JSON number, and never changes what it was given', () => {
    const given = {
      n: 4111111111111111,
      id: 1234567890123,
      ok: true,
      none: null,
      nested: { token: 'x' },
    };
    expect(scrubValue(given)).toEqual({
      n: FILTERED,
      id: 1234567890123,
      ok: true,
      none: null,
      nested: { token: FILTERED },
    });
    expect(given.nested.token).toBe('x');
  });
});

describe('@ferry/core/scrub, the widget’s scrubber too (issue 45)', () => {
  it('imports nothing, so the browser bundle takes it without the rest of core', () => {
    const source = readFileSync(new URL('../src/scrub.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^\s*(import|export .* from)\b/m);
  });

  it('judges keys with the default rules unless given others', () => {
    expect(isSensitiveKey('X-Session-Id')).toBe(true);
    expect(isSensitiveKey('x-real-ip')).toBe(true);
    expect(isSensitiveKey('x-real-ip', scrubRules({ keepIp: true }))).toBe(false);
    expect(isSensitiveKey('shipping')).toBe(false);
  });

  it('masks every query value and the fragment’s key=value pairs', () => {
    expect(maskQuery('https://x.test/a?q=shoes&page=2#access_token=abc')).toBe(
      'https://x.test/a?q=*&page=*#access_token=*',
    );
    expect(maskQuery('/plain/path#section')).toBe('/plain/path#section');
  });
});
