import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_SOURCES, type Role } from '@ferry/db';
import {
  createErrorGroup,
  createErrorOccurrence,
  createVisitor,
  createWorkspace,
} from '@ferry/testing';
import { FormClient, signedInSeat, startWeb, type WebHarness } from './harness.js';

const SOURCES = ERROR_SOURCES;

describe('Errors pages', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb({ PUBLIC_URL: 'http://ferry.example.test:8080' });
  });
  afterAll(async () => {
    await web.close();
  });

  async function seated(role: Role) {
    const seated = await signedInSeat(web, role);
    return { ...seated, errors: `${seated.base}/errors` };
  }

  /** Group i was last seen i minutes after a fixed start, so higher numbers are more recent. */
  async function seedGroups(workspace: { id: string }, n: number) {
    const start = Date.parse('2026-11-01T00:00:00Z');
    const groups = [];
    for (let i = 0; i < n; i++) {
      groups.push(
        await createErrorGroup(web.ctx.db, workspace, {
          error_class: `Error${i}`,
          latest_message: `Message number ${i}`,
          source: SOURCES[i % SOURCES.length]!,
          occurrence_count: i + 1,
          first_seen_at: new Date(start),
          last_seen_at: new Date(start + i * 60_000),
        }),
      );
    }
    return groups;
  }

  it('shows how to send a first report when there are no errors', async () => {
    const { client, errors, workspace } = await seated('member');
    const page = await client.get(errors);
    expect(page.status).toBe(200);
    expect(page.text).toContain('No errors reported yet');
    expect(page.text).not.toContain('Error ingestion is turned off');
    expect(page.text).toContain('curl -X POST http://ferry.example.test:8080/ingest/errors');
    expect(page.text).toContain(`X-Service-Tenant: ${workspace.public_key}`);
    expect(page.text).toContain('<strong>0 occurrences</strong> retained');
    expect(page.text).toMatch(/aria-current="page"\s*>Errors</);
  });

  it('lists groups most recently seen first, 25 a page, with the retained total', async () => {
    const { client, errors, workspace } = await seated('member');
    const groups = await seedGroups(workspace, 30);
    // Same last_seen_at: the larger id comes first, so pages never overlap or skip. Ids carry the
    // millisecond they were made in (random within it): the twin's is made in a later one.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const twin = await createErrorGroup(web.ctx.db, workspace, {
      error_class: 'TwinError',
      last_seen_at: groups[29]!.last_seen_at,
      first_seen_at: groups[29]!.last_seen_at,
    });
    expect(twin.id > groups[29]!.id).toBe(true);
    for (let i = 0; i < 3; i++) await createErrorOccurrence(web.ctx.db, groups[0]!);

    const first = await client.get(errors);
    expect(first.status).toBe(200);
    const text = first.text;
    expect(text).toMatch(/<strong>3 occurrences<\/strong> retained in\s+31 groups/);
    expect(text.indexOf('TwinError')).toBeLessThan(text.indexOf('>Error29<'));
    expect(text.indexOf('>Error29<')).toBeLessThan(text.indexOf('>Error28<'));
    expect(text).toContain('>Error6<');
    expect(text).not.toContain('>Error5<');
    expect(text.match(/<tr>/g)?.length).toBe(26); // header + 25
    expect(text).toContain('Page 1 of 2');
    expect(text).toContain(`href="${errors}?page=2"`);
    expect(text).toContain('Message number 29');
    expect(text).toContain(`href="${errors}/${groups[29]!.id}"`);
    expect(text).toMatch(/<time datetime="2026-11-01T00:29:00.000Z" title="[^"]+2026/);

    const second = await client.get(`${errors}?page=2`);
    expect(second.text).toContain('Page 2 of 2');
    expect(second.text).toContain('>Error5<');
    expect(second.text).toContain('>Error0<');
    expect(second.text).not.toContain('>Error6<');
    expect(second.text).toContain(`href="${errors}" rel="prev"`);
    expect(second.text).not.toContain('rel="next"');
  });

  it('filters by source, pages within it and falls back on junk values', async () => {
    const { client, errors, workspace } = await seated('member');
    await seedGroups(workspace, 7 * 27); // 27 groups per source
    const js = await client.get(`${errors}?source=js`);
    expect(js.text).toMatch(/aria-current="page"\s*>js <span class="count">27<\/span>/);
    expect(js.text).toContain('Page 1 of 2');
    // Issue 43: ?source= is folded into the search, which the links carry from then on.
    expect(js.text).toContain(`href="${errors}?q=is%3Aunresolved+source%3Ajs&amp;page=2"`);
    const rows = [...js.text.matchAll(/<span class="badge source source-(\w+)">/g)].map(
      (m) => m[1],
    );
    expect(rows).toHaveLength(25);
    expect(new Set(rows)).toEqual(new Set(['js']));
    // js is every 7th from 1: the most recent is 7*26+1 = 183.
    expect(js.text.indexOf('>Error183<')).toBeLessThan(js.text.indexOf('>Error176<'));

    const js2 = await client.get(`${errors}?source=js&page=2`);
    expect(js2.text).toContain('Page 2 of 2');
    expect(js2.text).toContain('>Error8<');
    expect(js2.text).toContain('>Error1<');
    expect(js2.text).not.toContain('>Error15<');

    for (const query of ['?source=<script>', '?page=abc', '?page=-1', '?source=JS&page=0']) {
      const res = await client.get(`${errors}${query}`);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<script>');
      expect(res.text).toMatch(/aria-current="page"\s*>All <span class="count">189<\/span>/);
      expect(res.text).toContain('Page 1 of 8');
    }
    const beyond = await client.get(`${errors}?page=50`);
    expect(beyond.status).toBe(200);
    expect(beyond.text).toContain('No more error groups');
    expect(beyond.text).toContain(`href="${errors}?page=8" rel="prev"`);
  });

  it('shows a group with its latest occurrences in full, escaped, with the visitor', async () => {
    const { client, errors, workspace } = await seated('member');
    const group = await createErrorGroup(web.ctx.db, workspace, {
      error_class: 'NoMethodError',
      latest_message: "undefined method 'charge' for nil <script>alert(1)</script>",
      source: 'ruby',
      occurrence_count: 120,
    });
    const visitor = await createVisitor(web.ctx.db, workspace, {
      name: 'Ada Lovelace',
      email: 'ada@example.test',
      token: 'vt_ada_123_secret_rest',
    });
    const start = Date.parse('2026-11-02T10:00:00Z');
    for (let i = 0; i < 105; i++) {
      await createErrorOccurrence(web.ctx.db, group, {
        message: `Occurrence message ${i}`,
        occurred_at: new Date(start + i * 1000),
      });
    }
    await createErrorOccurrence(web.ctx.db, group, {
      message: 'The newest <b>one</b>',
      occurred_at: new Date(start + 500_000),
      received_at: new Date(start + 501_000),
      backtrace: ['app/models/order.rb:42:in `charge`', 'app/controllers/<orders>.rb:7'],
      url: 'https://shop.example.test/checkout?step=2',
      request_method: 'POST',
      request_path: '/checkout',
      environment: 'staging',
      app_version: '4.2.1',
      context: { user_id: 42, cart: { items: ['<img src=x onerror=alert(1)>'] } },
      visitor_id: visitor.id,
    });
    await createErrorOccurrence(web.ctx.db, group, {
      url: 'javascript:alert(1)',
      occurred_at: new Date(start - 1000),
    });

    const page = await client.get(`${errors}/${group.id}`);
    expect(page.status).toBe(200);
    const text = page.text;
    expect(text).toContain('NoMethodError');
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).not.toContain('<script>alert');
    expect(text).toContain('Latest 100 occurrences of 120');
    // 20 a page, collapsed but for the first, newest first; 100 across five pages.
    expect(text.match(/<details class="card occurrence"/g)).toHaveLength(20);
    expect(text.match(/<details class="card occurrence" id="[^"]+" open>/g)).toHaveLength(1);
    expect(text).toContain('Page 1 of 5');
    expect(text.indexOf('The newest &lt;b&gt;one&lt;/b&gt;')).toBeLessThan(
      text.indexOf('Occurrence message 104'),
    );
    expect(text).toContain('Occurrence message 86<');
    expect(text).not.toContain('Occurrence message 85<');
    const last = await client.get(`${errors}/${group.id}?page=5`);
    expect(last.text).toContain('Page 5 of 5');
    expect(last.text).toContain('Occurrence message 6<');
    expect(last.text).not.toContain('Occurrence message 5<');
    expect(last.text).not.toContain('Occurrence message 26<');
    expect(last.text.match(/<details class="card occurrence"/g)).toHaveLength(20);
    const beyond = await client.get(`${errors}/${group.id}?page=9`);
    expect(beyond.status).toBe(200);
    expect(beyond.text).toContain('There is no page 9');
    expect(beyond.text).toContain(`href="${errors}/${group.id}?page=5">Go to the last page`);
    expect(beyond.text).not.toContain('<details');
    expect(text).not.toContain('href="javascript:');
    expect(text).toMatch(
      /<pre class="backtrace">app\/models\/order.rb:42:in &#96;charge&#96;\napp\/controllers\/&lt;orders&gt;.rb:7<\/pre>/,
    );
    expect(text).toContain('href="https://shop.example.test/checkout?step=2"');
    expect(text).toContain('<code>POST /checkout</code>');
    expect(text).toContain('staging');
    expect(text).toContain('4.2.1');
    // Pretty-printed as stored (jsonb keeps its own key order), escaped.
    expect(text).toContain(
      '<pre class="context">{\n  &quot;cart&quot;: {\n    &quot;items&quot;: [\n      &quot;&lt;img src=x onerror=alert(1)&gt;&quot;\n    ]\n  },\n  &quot;user_id&quot;: 42\n}</pre>',
    );
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('mailto:ada@example.test');
    // Never the visitor's token, not even its start (#28).
    expect(text).not.toContain('vt_ada');
    expect(text).not.toContain('secret_rest');
    expect(text).toContain('2026-11-02T10:08:21.000Z');
  });

  it('resolves, ignores and reopens a group through the CSRF-checked buttons', async () => {
    const { client, errors, workspace } = await seated('member');
    const group = await createErrorGroup(web.ctx.db, workspace, {
      error_class: 'Stripe::CardError',
      environments: ['production'],
    });
    const other = await createErrorGroup(web.ctx.db, workspace, {
      error_class: 'Net::ReadTimeout',
      environments: ['staging'],
    });
    const here = `${errors}/${group.id}`;
    const page = await client.get(here);
    expect(page.text).toMatch(/<input type="hidden" name="status" value="resolved" \/><button/);
    expect(page.text).toContain(`action="${here}/status"`);

    const resolved = await client.post(
      `${here}/status`,
      { status: 'resolved' },
      { csrfFrom: here },
    );
    expect(resolved.status).toBe(303);
    expect(resolved.location).toBe(here);
    const after = await client.get(here);
    expect(after.text).toContain('Resolved. A new occurrence will reopen it as a regression.');
    expect(after.text).toMatch(/data-testid="group-status">\s*<strong>Resolved<\/strong>/);
    expect(after.text).toMatch(/>\s*Reopen\s*<\/button>/);

    // The list: unresolved by default, the other statuses a tab away.
    const list = await client.get(errors);
    expect(list.text).toContain('>Net::ReadTimeout<');
    expect(list.text).not.toContain('>Stripe::CardError<');
    expect(list.text).toMatch(/aria-current="page"\s*>Unresolved <span class="count">1<\/span>/);
    const resolvedTab = await client.get(`${errors}?status=resolved`);
    expect(resolvedTab.text).toContain('>Stripe::CardError<');
    expect(resolvedTab.text).not.toContain('>Net::ReadTimeout<');
    const staging = await client.get(`${errors}?status=all&environment=staging`);
    expect(staging.text).toContain('>Net::ReadTimeout<');
    expect(staging.text).not.toContain('>Stripe::CardError<');
    const search = await client.get(`${errors}?status=all&q=CARDERROR`);
    expect(search.text).toContain('>Stripe::CardError<');
    expect(search.text).not.toContain('>Net::ReadTimeout<');
    expect(search.text).toContain('value="CARDERROR"');
    for (const query of ['?q=%00', '?environment=a%00b', '?q=%zz&status=%00', '?q=a&q=b']) {
      expect((await client.get(`${errors}${query}`)).status).toBe(200);
    }
    const nothing = await client.get(`${errors}?q=%25%3Cscript%3E`);
    expect(nothing.status).toBe(200);
    expect(nothing.text).toContain('No error groups match');
    expect(nothing.text).not.toContain('<script>');

    expect(
      (await client.post(`${here}/status`, { status: 'ignored' }, { csrfFrom: here })).status,
    ).toBe(303);
    expect((await client.get(`${errors}?status=ignored`)).text).toContain('>Stripe::CardError<');

    // Bad input: no CSRF token, an unknown status, another workspace's group.
    const noToken = await client.post(`${here}/status`, { status: 'resolved', _csrf: '' });
    expect(noToken.status).toBe(403);
    const junk = await client.post(`${here}/status`, { status: 'closed' }, { csrfFrom: here });
    expect(junk.status).toBe(303);
    expect((await client.get(here)).text).toContain('Choose Resolve, Ignore or Reopen.');
    const foreign = await createErrorGroup(web.ctx.db, await createWorkspace(web.ctx.db));
    const refused = await client.post(
      `${errors}/${foreign.id}/status`,
      { status: 'resolved' },
      { csrfFrom: here },
    );
    expect(refused.status).toBe(404);
    const rows = await web.ctx.db
      .selectFrom('error_groups')
      .select(['id', 'status'])
      .where('id', 'in', [group.id, foreign.id, other.id])
      .execute();
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      [group.id]: 'ignored',
      [foreign.id]: 'unresolved',
      [other.id]: 'unresolved',
    });
  });

  it("answers 404 for unknown, junk and other workspaces' groups", async () => {
    const { client, errors } = await seated('admin');
    const foreign = await createErrorGroup(web.ctx.db, await createWorkspace(web.ctx.db), {
      error_class: 'ForeignSecretError',
    });
    for (const id of [foreign.id, 'egr_00000000000000000000000000', 'junk', '%3Cscript%3E']) {
      const res = await client.get(`${errors}/${id}`);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('ForeignSecretError');
    }
  });

  it('keeps guests out of the Errors pages and settings; members see the public key', async () => {
    const guest = await seated('guest');
    const group = await createErrorGroup(web.ctx.db, guest.workspace);
    expect((await guest.client.get(guest.errors)).status).toBe(403);
    expect((await guest.client.get(`${guest.errors}/${group.id}`)).status).toBe(403);
    const settings = await guest.client.get(`${guest.base}/settings/errors`);
    expect(settings.status).toBe(403);
    expect(settings.text).not.toContain(guest.workspace.public_key);
    const home = await guest.client.get(guest.base);
    expect(home.text).not.toContain(`href="${guest.errors}"`);

    const member = await seated('member');
    const page = await member.client.get(`${member.base}/settings/errors`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(member.workspace.public_key);
    expect(page.text).toContain('curl -X POST http://ferry.example.test:8080/ingest/errors');
    expect(page.text).toContain(`X-Service-Tenant: ${member.workspace.public_key}`);
    // The DSN for Sentry SDKs, and a set-up for each of the four platforms.
    const dsn = `http://${member.workspace.public_key}@ferry.example.test:8080/1`;
    expect(page.text).toContain(`data-testid="sentry-dsn"`);
    for (const name of ['node', 'browser', 'python', 'ruby']) {
      expect(page.text).toContain(`data-testid="sentry-snippet-${name}"`);
    }
    expect(page.text).toContain(`dsn: &#39;${dsn}&#39;`);
    expect(page.text).toContain(`dsn=&quot;${dsn}&quot;`);

    const anonymous = await new FormClient(web.url).get(member.errors);
    expect(anonymous.status).toBe(302);
    expect(anonymous.location).toMatch(/^\/login\?next=/);
  });
  it("names a widget visitor by what service('identify', …) said, never by their token (#28)", async () => {
    const { client, errors, workspace } = await seated('member');
    const tenant = { 'Content-Type': 'application/json', 'X-Service-Tenant': workspace.public_key };
    const made = await fetch(`${web.url}/widget/v1/visitors`, {
      method: 'POST',
      headers: tenant,
      body: '{}',
    });
    const { visitor } = (await made.json()) as { visitor: { token: string } };
    const identify = (token: string, body: unknown) =>
      fetch(`${web.url}/widget/v1/visitors/identity`, {
        method: 'POST',
        headers: { ...tenant, 'X-Service-Visitor': token },
        body: JSON.stringify(body),
      });
    expect((await identify('vt_unknown', { label: 'X' })).status).toBe(401);
    expect((await identify(visitor.token, { email: 'not an email' })).status).toBe(422);
    const identified = await identify(visitor.token, {
      label: 'Vera Visitor',
      role: 'customer',
      email: 'vera@example.test',
    });
    expect(identified.status).toBe(204);

    const visitorRow = await web.ctx.db
      .selectFrom('visitors')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    const anonymous = await createVisitor(web.ctx.db, workspace);
    await web.ctx.db
      .updateTable('visitors')
      .set({ name: null })
      .where('id', '=', anonymous.id)
      .execute();
    const group = await createErrorGroup(web.ctx.db, workspace, { error_class: 'TypeError' });
    await createErrorOccurrence(web.ctx.db, group, {
      message: 'identified',
      visitor_id: visitorRow.id,
      occurred_at: new Date(Date.now() - 1000),
    });
    await createErrorOccurrence(web.ctx.db, group, {
      message: 'anonymous',
      visitor_id: anonymous.id,
      occurred_at: new Date(Date.now() - 2000),
    });
    const page = (await client.get(`${errors}/${group.id}`)).text;
    expect(page).toContain('Vera Visitor (customer)');
    expect(page).toContain('href="mailto:vera@example.test"');
    expect(page).toContain('a visitor who was not identified');
    expect(page).not.toContain('vt_');
    expect(page).not.toContain('unnamed');
  });
});

describe('Errors pages with ERROR_INGESTION_ENABLED=false (#28)', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb({ ERROR_INGESTION_ENABLED: 'false' });
  });
  afterAll(async () => {
    await web.close();
  });

  it('say that ingestion is off where they show how to send a report, and on the list', async () => {
    const { client, base, workspace } = await signedInSeat(web, 'member');
    for (const path of [`${base}/errors`, `${base}/settings/errors`]) {
      const page = await client.get(path);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Error ingestion is turned off on this server');
      // Before the curl example, not somewhere below it.
      expect(page.text.indexOf('data-testid="ingestion-off"')).toBeLessThan(
        page.text.indexOf('data-testid="ingest-curl"'),
      );
    }
    await createErrorGroup(web.ctx.db, workspace, { error_class: 'KeptFromBefore' });
    const list = await client.get(`${base}/errors`);
    expect(list.text).toContain('KeptFromBefore');
    expect(list.text).toContain('Error ingestion is turned off on this server');
  });
});
