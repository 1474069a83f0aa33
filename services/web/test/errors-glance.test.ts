import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorGroup, createErrorOccurrence } from '@ferry/testing';
import { sql } from 'kysely';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Issue 26, part 4: the Errors list shows what tells groups of one class apart (culprit,
 * environments, last release), and the Dashboard has an Errors card (new today, regressions, the
 * three busiest groups of the last 24 hours).
 */
describe('errors at a glance', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  it('lists each group with its culprit, environments and last release', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'member');
    const group = await createErrorGroup(web.ctx.db, workspace, {
      error_class: 'KeyError',
      environments: ['production', 'staging'],
    });
    await createErrorOccurrence(web.ctx.db, group, {
      backtrace: ['app/old.py:1:in old'],
      app_version: '1.0.0',
      occurred_at: new Date(Date.now() - 60_000),
    });
    await createErrorOccurrence(web.ctx.db, group, {
      backtrace: ['app/billing.py:88:in charge', 'app/views.py:12:in pay'],
      app_version: '1.4.2',
    });
    const page = await client.get(`${base}/errors`);
    expect(page.status).toBe(200);
    const row = page.text.slice(page.text.indexOf('KeyError'));
    expect(row).toContain('<code>app/billing.py:88:in charge</code>');
    expect(row).toContain('production, staging');
    expect(row).toContain('release 1.4.2');
    expect(row.slice(0, row.indexOf('</tr>'))).not.toContain('app/old.py');
  });

  it('shows an Errors card on the Dashboard: new today, regressions, the busiest three', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'member');
    const { db } = web.ctx;
    const busy = await createErrorGroup(db, workspace, { error_class: 'BusyError' });
    const quiet = await createErrorGroup(db, workspace, { error_class: 'QuietError' });
    const old = await createErrorGroup(db, workspace, {
      error_class: 'OldError',
      first_seen_at: new Date(Date.now() - 3 * 86_400_000),
    });
    const ignored = await createErrorGroup(db, workspace, { error_class: 'IgnoredError' });
    for (let i = 0; i < 4; i++) await createErrorOccurrence(db, busy);
    await createErrorOccurrence(db, quiet);
    for (let i = 0; i < 6; i++) await createErrorOccurrence(db, ignored);
    await sql`update error_groups set status = 'ignored' where id = ${ignored.id}`.execute(db);
    await sql`update error_groups set regressed_at = now() where id = ${old.id}`.execute(db);

    const page = await client.get(base);
    expect(page.status).toBe(200);
    const card = page.text.slice(page.text.indexOf('id="errors-card"'));
    expect(card).toMatch(/<strong>3<\/strong> new today/);
    expect(card).toMatch(/<strong>1<\/strong>\s*regression/);
    const busiest = card.slice(card.indexOf('class="busiest"'), card.indexOf('</ol>'));
    expect(busiest.indexOf('BusyError')).toBeGreaterThan(-1);
    expect(busiest.indexOf('BusyError')).toBeLessThan(busiest.indexOf('QuietError'));
    expect(busiest).toContain('4 occurrences in 24 h');
    expect(busiest).not.toContain('IgnoredError');
  });

  it('leaves the card out for a guest, who may not read errors', async () => {
    const { client, base } = await signedInSeat(web, 'guest');
    const page = await client.get(base);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('id="errors-card"');
  });
});
