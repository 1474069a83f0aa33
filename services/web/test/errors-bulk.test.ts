import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { newId } from '@ferry/core';
import type { Workspace } from '@ferry/db';
import { createApiToken, createMember, createUser, FormClient } from '@ferry/testing';
import { ERROR_BULK_INLINE_MAX } from '@ferry/workspace';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Issue 43, bulk actions from the Errors list and the API: checked rows or "all N matching" over
 * pages, resolve / ignore / reopen / assign (one notice for the assignee), the guest rule, and
 * clear refusals. Small actions finish in the request; a large one answers 202 and a progress
 * page (services/ingest-errors/test/bulk.test.ts runs the job itself over 12,000 groups).
 */
describe('bulk actions on the Errors list and API', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  /** `count` groups named `<prefix>Error<i>`, one a second apart (the list's order: newest first). */
  async function groups(workspace: Pick<Workspace, 'id'>, count: number, prefix = 'Checkout') {
    const base = Date.now() - count * 1_000;
    const rows = Array.from({ length: count }, (_, i) => ({
      id: newId('errorGroup'),
      workspace_id: workspace.id,
      fingerprint: `${prefix}-${i}-${newId('errorGroup')}`,
      error_class: `${prefix}Error${i}`,
      latest_message: `failed ${i}`,
      source: 'js' as const,
      occurrence_count: 1,
      first_seen_at: new Date(base + i * 1_000),
      last_seen_at: new Date(base + i * 1_000),
      environments: [],
    }));
    await web.ctx.db.insertInto('error_groups').values(rows).execute();
    return rows;
  }

  async function statusCounts(workspaceId: string): Promise<Record<string, number>> {
    const rows = await web.ctx.db
      .selectFrom('error_groups')
      .select(['status', sql<string>`count(*)`.as('n')])
      .where('workspace_id', '=', workspaceId)
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  }

  it('resolves checked rows, then every group a search matches across pages', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'member');
    const checkout = await groups(workspace, 60);
    await groups(workspace, 5, 'Billing');
    const list = await client.get(`${base}/errors`);
    expect(list.text).toContain('data-testid="bulk-bar"');
    expect(list.text).toContain('All <strong>65</strong> matching this search');

    // Two checked rows.
    const two = [checkout[0]!.id, checkout[1]!.id];
    const resolved = await client.post(
      `${base}/errors/bulk`,
      { action: 'resolve', ids: two, q: 'is:unresolved' },
      { csrfFrom: `${base}/errors` },
    );
    expect(resolved.status).toBe(303);
    expect(resolved.location).toBe(`${base}/errors`);
    expect((await client.follow(resolved)).text).toContain('Resolved 2 groups.');
    expect(await statusCounts(workspace.id)).toEqual({ unresolved: 63, resolved: 2 });

    // All 58 unresolved Checkout groups: three pages of the list, one action.
    const all = await client.post(
      `${base}/errors/bulk`,
      { action: 'ignore', all: '1', q: 'is:unresolved Checkout', page: '2' },
      { csrfFrom: `${base}/errors` },
    );
    expect(all.location).toBe(`${base}/errors?q=is%3Aunresolved+Checkout&page=2`);
    const after = await client.follow(all);
    expect(after.text).toContain('Ignored 58 groups.');
    expect(await statusCounts(workspace.id)).toEqual({ unresolved: 5, resolved: 2, ignored: 58 });
    // The list's counts say so.
    const unresolved = await client.get(`${base}/errors`);
    expect(unresolved.text).toContain('All <strong>5</strong> matching this search');

    // Reopen them all again.
    await client.post(
      `${base}/errors/bulk`,
      { action: 'unresolve', all: '1', q: 'is:ignored' },
      { csrfFrom: `${base}/errors` },
    );
    expect(await statusCounts(workspace.id)).toEqual({ unresolved: 63, resolved: 2 });
  });

  it('assigns all matching over pages with one notice, and unassigns', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'admin');
    const ada = await createMember(web.ctx.db, workspace, {
      role: 'member',
      user: await createUser(web.ctx.db, { name: 'Ada Bulk' }),
    });
    const adaClient = new FormClient(web.url);
    await adaClient.signIn(ada.user.email, ada.user.password);
    await groups(workspace, 55);
    const assigned = await client.post(
      `${base}/errors/bulk`,
      { action: 'assign', all: '1', q: 'Checkout', assignee_id: ada.id },
      { csrfFrom: `${base}/errors` },
    );
    expect((await client.follow(assigned)).text).toContain('Assigned 55 groups.');
    const mine = await adaClient.get(`${base}/errors?q=assigned%3Ame`);
    expect(mine.text).toContain('All <strong>55</strong> matching this search');
    // One notice, not 55.
    const mentions = await adaClient.get(`${base}/mentions`);
    expect(mentions.text).toContain('1 new mention since you last looked.');
    expect(mentions.text).toContain('assigned you 55 errors.');
    expect(mentions.text).toContain(`href="${base}/errors?q=assigned%3Ame"`);

    const cleared = await client.post(
      `${base}/errors/bulk`,
      { action: 'assign', all: '1', q: 'assigned:me', assignee_id: '' },
      { csrfFrom: `${base}/errors` },
    );
    // The admin has none assigned: a refusal, said on the list.
    expect((await client.follow(cleared)).text).toContain('No error group matches');
    const unassigned = await client.post(
      `${base}/errors/bulk`,
      { action: 'assign', all: '1', q: `assigned:${ada.user.email}`, assignee_id: '' },
      { csrfFrom: `${base}/errors` },
    );
    expect((await client.follow(unassigned)).text).toContain('Unassigned 55 groups.');
  });

  it('refuses a guest, nothing selected, a bad search and a guest assignee, each with a reason', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'member');
    const [one] = await groups(workspace, 3);
    const guest = await createMember(web.ctx.db, workspace, { role: 'guest' });
    const guestClient = new FormClient(web.url);
    await guestClient.signIn(guest.user.email, guest.user.password);
    const asGuest = await guestClient.post(
      `${base}/errors/bulk`,
      { action: 'resolve', ids: [one!.id] },
      { csrfFrom: base },
    );
    expect(asGuest.status).toBe(403);
    // A guest cannot even read the list, so never sees the bar.
    expect((await guestClient.get(`${base}/errors`)).status).toBe(403);

    const post = (form: Record<string, string | string[]>) =>
      client.post(`${base}/errors/bulk`, form, { csrfFrom: `${base}/errors` }).then((answer) => {
        expect(answer.status).toBe(303);
        return client.follow(answer);
      });
    expect((await post({ action: 'resolve' })).text).toContain('Select the groups to act on');
    expect((await post({ action: 'explode', ids: [one!.id] })).text).toContain(
      'Choose Resolve, Ignore, Reopen, Assign or Merge.',
    );
    expect((await post({ action: 'resolve', all: '1', q: 'lvel:error' })).text).toContain(
      '“lvel:error”',
    );
    expect((await post({ action: 'resolve', ids: ['<script>'] })).text).toContain(
      '“&lt;script&gt;” is not an error group id.',
    );
    expect(
      (await post({ action: 'assign', ids: [one!.id], assignee_id: guest.id })).text,
    ).toContain('guests cannot be assigned');
    expect(await statusCounts(workspace.id)).toEqual({ unresolved: 3 });
    // Another workspace's group is not this one's: nothing to act on.
    const other = await signedInSeat(web, 'member');
    const [theirs] = await groups(other.workspace, 1);
    expect((await post({ action: 'resolve', ids: [theirs!.id] })).text).toContain(
      'None of those ids is an error group of this workspace.',
    );
    expect(await statusCounts(other.workspace.id)).toEqual({ unresolved: 1 });
  });

  it('API: q or ids, 200 when done, 202 with a Location for a job, clear 422s', async () => {
    const { workspace } = await signedInSeat(web, 'member');
    const made = await groups(workspace, ERROR_BULK_INLINE_MAX + 20);
    const writer = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
    const reader = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:read'] })).raw;
    const bulk = (body: unknown, token = writer) =>
      fetch(`${web.url}/api/v1/errors/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    type ActionBody = {
      action: { id: string; status: string; total: number; processed: number; changed: number };
    };

    const small = await bulk({
      action: 'resolve',
      ids: [made[0]!.id, made[1]!.id, newId('errorGroup')],
    });
    // An id-shaped id that is no group here is left out, not an error.
    expect(small.status).toBe(200);
    expect(((await small.json()) as ActionBody).action).toMatchObject({
      status: 'done',
      total: 2,
      processed: 2,
      changed: 2,
    });

    // More than one chunk: a job (no worker runs in this test: it stays queued), polled here.
    const large = await bulk({ action: 'ignore', q: 'is:unresolved' });
    expect(large.status).toBe(202);
    const { action } = (await large.json()) as ActionBody;
    expect(action).toMatchObject({ status: 'queued', total: ERROR_BULK_INLINE_MAX + 18 });
    expect(large.headers.get('location')).toBe(`/api/v1/errors/bulk/${action.id}`);
    const polled = await fetch(`${web.url}/api/v1/errors/bulk/${action.id}`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(polled.status).toBe(200);
    expect(((await polled.json()) as ActionBody).action.id).toBe(action.id);
    expect(
      (
        await fetch(`${web.url}/api/v1/errors/bulk/ebk_nope`, {
          headers: { authorization: `Bearer ${reader}` },
        })
      ).status,
    ).toBe(404);

    for (const [body, field] of [
      [{}, 'action'],
      [{ action: 'resolve' }, 'q'],
      [{ action: 'resolve', q: 'x', ids: [made[0]!.id] }, 'q'],
      [{ action: 'resolve', ids: [] }, 'ids'],
      [{ action: 'resolve', ids: ['nope'] }, 'ids'],
      [{ action: 'assign', ids: [made[0]!.id] }, 'assignee_id'],
      [{ action: 'resolve', ids: [made[0]!.id], assignee_id: null }, 'assignee_id'],
      [{ action: 'resolve', q: 'times-seen:lots' }, 'q'],
      [{ action: 'resolve', q: 'is:unresolved nothing-matches-this' }, 'q'],
      [{ action: 'resolve', ids: Array.from({ length: 1_001 }, () => made[0]!.id) }, 'ids'],
    ] as const) {
      const res = await bulk(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      const error = (await res.json()) as { error: { fields?: Record<string, string> } };
      expect(error.error.fields?.[field], JSON.stringify(body).slice(0, 80)).toBeTruthy();
    }
    expect((await bulk({ action: 'resolve', q: 'is:unresolved' }, reader)).status).toBe(403);
  });

  it('shows a large action its progress page, which its script follows', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'member');
    await groups(workspace, ERROR_BULK_INLINE_MAX + 1);
    const started = await client.post(
      `${base}/errors/bulk`,
      { action: 'resolve', all: '1', q: 'is:unresolved' },
      { csrfFrom: `${base}/errors` },
    );
    expect(started.status).toBe(303);
    expect(started.location).toMatch(new RegExp(`^${base}/errors/bulk/ebk_\\w+\\?back=`));
    const page = await client.follow(started);
    expect(page.text).toContain(`Resolving ${ERROR_BULK_INLINE_MAX + 1} error groups`);
    expect(page.text).toContain('Waiting to start');
    const id = /bulk\/(ebk_\w+)/.exec(started.location!)![1]!;
    const progress = await client.get(`${base}/errors/bulk/${id}/progress`);
    expect(JSON.parse(progress.text)).toMatchObject({ status: 'queued', processed: 0 });
    // The list says it is running, with the way to its page.
    expect((await client.get(`${base}/errors`)).text).toContain('A bulk action is running');
    // Another workspace's member cannot see it.
    const other = await signedInSeat(web, 'member');
    expect((await other.client.get(`${other.base}/errors/bulk/${id}`)).status).toBe(404);
  });
});
