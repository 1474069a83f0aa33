import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorGroup, Workspace } from '@ferry/db';
import {
  createApiToken,
  createErrorGroup,
  createErrorOccurrence,
  createMember,
  createWorkspace,
} from '@ferry/testing';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

interface ListJson {
  groups: { error_class: string }[];
  total_groups: number;
}

interface ErrorJson {
  error: { code: string; message: string; fields?: Record<string, string> };
}

const HOUR = 3_600_000;

/**
 * Issue 43's search grammar through GET /api/v1/errors?q=: every key, negation, and a 422 naming
 * the token for each kind of error. Three groups differ on every key:
 * - TimeoutError: unresolved, node, production, 50 seen, first 2 days ago, last an hour ago;
 *   an occurrence on release 1.2.3, level warning, browser Chrome, feature checkout-v2, at
 *   https://shop.test/checkout/pay, culprit PaymentClient.charge;
 * - TypeError: resolved, js, staging, 3 seen, first 10 days ago, last 3 days ago; release 1.1.0,
 *   no level (a native report: error), browser Safari, https://shop.test/cart;
 * - RangeError: ignored, ruby, production, 1,000 seen, first in 2020, last 2 hours ago; no
 *   tags, culprit order.rb.
 * TimeoutError is assigned to Ana, who made the token (so `assigned:me` is Ana for it).
 */
describe('errors search (q=)', () => {
  let web: WebHarness;
  let workspace: Workspace;
  let token: string;
  let anaEmail: string;
  beforeAll(async () => {
    web = await startWeb();
    const db = web.ctx.db;
    workspace = await createWorkspace(db);
    const ana = await createMember(db, workspace, { role: 'member' });
    anaEmail = ana.user.email;
    token = (await createApiToken(db, workspace, { scopes: ['tenant:read'], createdBy: ana })).raw;
    const now = Date.now();
    const seed = async (
      group: Partial<Omit<ErrorGroup, 'occurrence_count'>> & { occurrence_count: number },
      occurrence: {
        tags?: Record<string, string>;
        detail?: Record<string, unknown>;
        url?: string;
        app_version?: string;
        backtrace: string[];
      },
    ) => {
      const created = await createErrorGroup(db, workspace, group);
      const { tags, detail, ...fields } = occurrence;
      const row = await createErrorOccurrence(db, created, fields);
      await db
        .updateTable('error_occurrences')
        .set({
          tags: tags ? JSON.stringify(tags) : null,
          detail: detail ? JSON.stringify(detail) : null,
        })
        .where('id', '=', row.id)
        .execute();
    };
    await seed(
      {
        error_class: 'TimeoutError',
        latest_message: 'payment client timed out',
        source: 'node',
        environments: ['production'],
        occurrence_count: 50,
        first_seen_at: new Date(now - 48 * HOUR),
        last_seen_at: new Date(now - HOUR),
      },
      {
        tags: { browser: 'Chrome', feature: 'checkout-v2' },
        detail: { level: 'warning' },
        url: 'https://shop.test/checkout/pay',
        app_version: '1.2.3',
        backtrace: ['PaymentClient.charge (pay.js:10)'],
      },
    );
    await seed(
      {
        error_class: 'TypeError',
        latest_message: 'cannot read properties of undefined',
        source: 'js',
        status: 'resolved',
        environments: ['staging'],
        occurrence_count: 3,
        first_seen_at: new Date(now - 240 * HOUR),
        last_seen_at: new Date(now - 72 * HOUR),
      },
      {
        tags: { browser: 'Safari' },
        url: 'https://shop.test/cart',
        app_version: '1.1.0',
        backtrace: ['Cart.render (cart.js:3)'],
      },
    );
    await seed(
      {
        error_class: 'RangeError',
        latest_message: 'bad range',
        source: 'ruby',
        status: 'ignored',
        environments: ['production'],
        occurrence_count: 1_000,
        first_seen_at: new Date('2020-01-01T00:00:00Z'),
        last_seen_at: new Date(now - 2 * HOUR),
      },
      { backtrace: ['app/models/order.rb:42:in `charge`'] },
    );
    await db
      .updateTable('error_groups')
      .set({ assignee_member_id: ana.id })
      .where('workspace_id', '=', workspace.id)
      .where('error_class', '=', 'TimeoutError')
      .execute();
  });
  afterAll(async () => {
    await web.close();
  });

  function get(query: string): Promise<Response> {
    return fetch(`${web.url}/api/v1/errors?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
  }

  /** The classes a query lists, sorted, after checking the total agrees. */
  async function classes(q: string): Promise<string[]> {
    const res = await get(`q=${encodeURIComponent(q)}`);
    const body = (await res.json()) as ListJson;
    expect(res.status, `${q}: ${JSON.stringify(body)}`).toBe(200);
    expect(body.total_groups).toBe(body.groups.length);
    return body.groups.map((g) => g.error_class).sort();
  }

  it('keeps the documented default without q=: every status', async () => {
    const res = await get('');
    expect(((await res.json()) as ListJson).total_groups).toBe(3);
  });

  it.each([
    ['is:unresolved', ['TimeoutError']],
    ['is:resolved', ['TypeError']],
    ['!is:unresolved', ['RangeError', 'TypeError']],
    ['source:js', ['TypeError']],
    ['!source:js', ['RangeError', 'TimeoutError']],
    ['env:production', ['RangeError', 'TimeoutError']],
    ['env:stag*', ['TypeError']],
    ['environment:staging', ['TypeError']],
    ['!env:production', ['TypeError']],
    ['release:1.2.3', ['TimeoutError']],
    ['release:1.*', ['TimeoutError', 'TypeError']],
    ['!release:1.1.0', ['RangeError', 'TimeoutError']],
    ['level:warning', ['TimeoutError']],
    ['level:error', ['RangeError', 'TypeError']],
    ['level:warn*', ['TimeoutError']],
    ['url:*/checkout/*', ['TimeoutError']],
    ['url:https://SHOP.test/cart', ['TypeError']],
    ['!url:*checkout*', ['RangeError', 'TypeError']],
    ['browser:Chrome', ['TimeoutError']],
    ['browser:chrome', []],
    ['feature:checkout-*', ['TimeoutError']],
    ['!browser:Chrome', ['RangeError', 'TypeError']],
    ['first-seen:-3d', ['TimeoutError']],
    ['first-seen:>2021-01-01', ['TimeoutError', 'TypeError']],
    ['first-seen:<2021-01-01', ['RangeError']],
    ['last-seen:-1d', ['RangeError', 'TimeoutError']],
    ['!last-seen:-1d', ['TypeError']],
    ['times-seen:>40', ['RangeError', 'TimeoutError']],
    ['times-seen:<10', ['TypeError']],
    ['times-seen:=1000', ['RangeError']],
    ['times-seen:50', ['TimeoutError']],
    ['typeerror', ['TypeError']],
    ['"timed out"', ['TimeoutError']],
    ['"out timed"', []],
    ['PaymentClient.charge', ['TimeoutError']],
    ['order.rb', ['RangeError']],
    ['!timeout', ['RangeError', 'TypeError']],
    ['!"bad range" is:ignored', []],
    ['env:production !is:ignored browser:Chrome payment', ['TimeoutError']],
    ['100%', []],
    ['assigned:me', ['TimeoutError']],
    ['assigned:none', ['RangeError', 'TypeError']],
    ['!assigned:me', ['RangeError', 'TypeError']],
    ['assigned:none is:resolved', ['TypeError']],
  ])('%s', async (q, expected) => {
    expect(await classes(q)).toEqual(expected);
  });

  it('assigned:<email> is that member, in any case; an email nobody here has is refused', async () => {
    expect(await classes(`assigned:${anaEmail}`)).toEqual(['TimeoutError']);
    expect(await classes(`!assigned:${anaEmail.toUpperCase()}`)).toEqual([
      'RangeError',
      'TypeError',
    ]);
    const res = await get(`q=${encodeURIComponent('assigned:nobody@example.test')}`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.fields?.q).toContain(
      '“assigned:nobody@example.test”: no member of this workspace has that email.',
    );
  });

  it('assigned:me from a token nobody made (a seed token) is refused, naming the token', async () => {
    const orphan = await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:read'] });
    const res = await fetch(`${web.url}/api/v1/errors?q=assigned%3Ame`, {
      headers: { authorization: `Bearer ${orphan.raw}` },
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.fields?.q).toContain('“assigned:me”');
  });

  it('ANDs q= with the older status, source and environment parameters', async () => {
    const res = await get(`status=ignored&q=${encodeURIComponent('env:production')}`);
    const body = (await res.json()) as ListJson;
    expect(body.groups.map((g) => g.error_class)).toEqual(['RangeError']);
  });

  it.each([
    ['is:open', 'is:open', 'unresolved, resolved, ignored'],
    ['lvel:error', 'lvel:error', 'unknown key lvel'],
    ['times-seen:many', 'times-seen:many', '>N, <N or =N'],
    ['first-seen:yesterday', 'first-seen:yesterday', '-24h'],
    ['level:loud', 'level:loud', 'fatal, error'],
    ['env:production "unclosed', '"unclosed', 'not closed'],
  ])('%s: a 422 naming the token', async (q, token, why) => {
    const res = await get(`q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorJson;
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.message).toContain(`“${token}”`);
    expect(body.error.message).toContain(why);
    expect(body.error.fields?.q).toContain(`“${token}”`);
  });

  it('the page: is:unresolved by default, a refusal under the box (422), the query in links', async () => {
    const { client, base, workspace: own } = await signedInSeat(web, 'member');
    await createErrorGroup(web.ctx.db, own, { error_class: 'SeenError', environments: ['prod'] });
    const page = await client.get(`${base}/errors`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/id="errors-q"[^>]*value="is:unresolved"/);
    expect(page.text).toContain('>SeenError<');
    // The source tab and environment shortcut edit the query.
    expect(page.text).toContain(`href="${base}/errors?q=is%3Aunresolved+source%3Ajs"`);
    expect(page.text).toContain(`href="${base}/errors?q=is%3Aunresolved+env%3Aprod"`);

    const refused = await client.get(`${base}/errors?q=${encodeURIComponent('is:open <b>')}`);
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(/data-testid="search-error">\s*“is:open”: use one of unresolved/);
    expect(refused.text).toContain('Fix the search to see errors');
    expect(refused.text).not.toContain('>SeenError<');
    expect(refused.text).not.toContain('<b>');
    expect(refused.text).toContain('value="is:open &lt;b&gt;"');
  });
});
