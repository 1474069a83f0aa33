import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  contentTypes,
  expectNoServerError,
  hostileText,
  PER_TARGET,
  percent,
  rawJunk,
  SEED,
  sendAll,
  shaped,
  startFuzzWorld,
  type FuzzWorld,
  type Sent,
} from './support/fuzz.js';
import { FormClient } from '@ferry/testing';

/**
 * At least 1,000 hostile bodies to each public JSON endpoint of `pnpm start` (and hostile query
 * strings to the read API): never a 5xx, and still ready afterwards. Generators in support/fuzz.ts.
 */
describe('fuzzing every public JSON endpoint', () => {
  let world: FuzzWorld;
  beforeAll(async () => {
    world = await startFuzzWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  const jsonTargets: [string, () => string, Record<string, string>, readonly string[]][] = [
    [
      'POST /ingest/errors',
      () => '/ingest/errors',
      {},
      ['errors', 'error_class', 'message', 'backtrace', 'context', 'occurred_at', 'source', 'url'],
    ],
    [
      'POST /wh/in/:key',
      () => `/wh/in/${world.webhookKey}`,
      {},
      [
        'body',
        'text',
        'sender',
        'name',
        'username',
        'room',
        'channel',
        'idempotency_key',
        // The other payload families' fields (#25): Slack, Mattermost, Discord, Teams.
        'blocks',
        'attachments',
        'icon_emoji',
        'icon_url',
        'props',
        'content',
        'embeds',
        'avatar_url',
        '@type',
        'type',
        'sections',
        'potentialAction',
      ],
    ],
    [
      'POST /api/v1/feedback',
      () => '/api/v1/feedback',
      {},
      ['note', 'title', 'reporter', 'page', 'element'],
    ],
  ];

  it.each(jsonTargets)(
    '%s: 1,000 hostile bodies, no 5xx',
    async (what, path, _extra, fields) => {
      const bodies = fc.sample(
        fc.tuple(fc.oneof({ weight: 4, arbitrary: shaped(fields) }, rawJunk), contentTypes),
        { numRuns: PER_TARGET, seed: SEED },
      );
      const headers: Record<string, string> = what.startsWith('POST /ingest')
        ? { 'x-service-tenant': world.tenant }
        : what.startsWith('POST /api')
          ? { authorization: `Bearer ${world.apiToken}` }
          : {};
      const answers = await sendAll(bodies, ([body, type]) =>
        world.postRaw(path(), body, type, headers),
      );
      expectNoServerError(answers, what);
      // Some bodies must have got through (else the test proves nothing about the parsers).
      expect(answers.some((a) => a.status < 300)).toBe(true);
    },
    120_000,
  );

  // Sentry's endpoints: hostile events as a store body, and wrapped in an envelope.
  const sentryFields = [
    'event_id',
    'exception',
    'message',
    'logentry',
    'stacktrace',
    'threads',
    'request',
    'tags',
    'user',
    'contexts',
    'extra',
    'timestamp',
    'release',
    'environment',
    'sdk',
    'platform',
  ];
  const sentryTargets: [string, string, (body: string) => string][] = [
    ['POST /api/:project/store/', '/api/1/store/', (body) => body],
    [
      'POST /api/:project/envelope/',
      '/api/1/envelope/',
      (body) => `{}\n{"type":"event"}\n${body}\n`,
    ],
  ];

  it.each(sentryTargets)(
    '%s: 300 hostile Sentry events, no 5xx',
    async (what, path, wrap) => {
      const bodies = fc.sample(
        fc.tuple(fc.oneof({ weight: 4, arbitrary: shaped(sentryFields) }, rawJunk), contentTypes),
        // Fewer than the others: sentry-hostile.test.ts covers the envelope's own framing, and
        // the suite must stay fast. The event mapping is what these exercise.
        { numRuns: 300, seed: SEED },
      );
      const answers = await sendAll(bodies, ([body, type]) =>
        world.postRaw(`${path}?sentry_key=${world.tenant}`, wrap(body), type),
      );
      expectNoServerError(answers, what);
      expect(answers.some((a) => a.status < 300)).toBe(true);
    },
    120_000,
  );

  it('GET /api/v1/errors and /api/v1/feedback with hostile query strings, no 5xx', async () => {
    const queries = fc.sample(
      fc.tuple(
        fc.constantFrom('/api/v1/errors', '/api/v1/feedback'),
        fc.dictionary(fc.constantFrom('page', 'source', 'status', 'x'), hostileText, {
          maxKeys: 3,
        }),
      ),
      { numRuns: PER_TARGET, seed: SEED },
    );
    const answers = await sendAll(queries, async ([path, params]) => {
      // Bytes as sent on the wire: UTF-8, plus malformed escapes and raw invalid UTF-8.
      const query = [
        ...Object.entries(params).map(([k, v]) => `${k}=${percent(v.slice(0, 2_000))}`),
        ...(params.x === undefined ? [] : ['page=%ED%A0%80', 'source=%00', 'status=%', 'x=%zz']),
      ].join('&');
      const res = await fetch(`${world.ferry.url}${path}?${query}`, {
        headers: { authorization: `Bearer ${world.apiToken}` },
      });
      return { status: res.status, text: await res.text() };
    });
    expectNoServerError(answers, 'read API');
  });

  it('takes NUL and lone surrogates in each named text field without a 5xx', async () => {
    const hostile = ['a\u0000b', '\ud800', 'x\udfffy'];
    const answers: Sent[] = [];
    for (const value of hostile) {
      for (const field of ['body', 'text', 'sender', 'name', 'username', 'idempotency_key']) {
        const payload: Record<string, unknown> = { body: 'ok', [field]: value };
        answers.push(
          await world.postRaw(
            `/wh/in/${world.webhookKey}`,
            JSON.stringify(payload),
            'application/json',
          ),
        );
      }
      const feedback = [
        { note: value },
        { note: 'n', title: value },
        { note: 'n', page: { partials: ['a', value] } },
        { note: 'n', element: { outer_html: `<b>${value}</b>` } },
      ];
      for (const body of feedback) {
        answers.push(
          await world.postRaw('/api/v1/feedback', JSON.stringify(body), 'application/json', {
            authorization: `Bearer ${world.apiToken}`,
          }),
        );
      }
      const csrf = await world.client.csrf(world.base);
      const forms: [string, Record<string, string>][] = [
        [`${world.roomPath}/messages`, { body: value }],
        [`${world.base}/settings/tokens`, { name: value, scopes: 'world.tenant:read' }],
        [`${world.roomPath}/settings/webhooks/incoming`, { name: value }],
        [
          `${world.roomPath}/settings/webhooks/outgoing`,
          { target_url: `https://example.com/${value}` },
        ],
        ['/workspaces', { name: value }],
      ];
      for (const [path, form] of forms) {
        const r = await world.client.post(path, { ...form, _csrf: csrf });
        answers.push({ status: r.status, text: r.text });
      }
      const anonymous = new FormClient(world.ferry.url);
      for (const [path, form] of [
        ['/login', { email: `a${value}@example.com`, password: 'x' }],
        ['/signup', { name: value, email: 'nul@example.com', password: 'long enough pw' }],
      ] as const) {
        const r = await anonymous.post(path, form);
        answers.push({ status: r.status, text: r.text });
      }
    }
    expectNoServerError(answers, 'named fields');
    // Stored as text with U+FFFD where NUL or a lone surrogate was.
    const stored = await world.ferry.ctx.db
      .selectFrom('messages')
      .select('body')
      .where('body', 'like', 'a\ufffdb%')
      .execute();
    expect(stored.length).toBeGreaterThan(0);
  });

  it('is still ready afterwards', async () => {
    const ready = await fetch(`${world.ferry.url}/readyz`);
    expect(ready.status).toBe(200);
  });
});
