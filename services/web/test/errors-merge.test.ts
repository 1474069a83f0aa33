import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiToken,
  createErrorGroup,
  createErrorOccurrence,
  createMember,
  FormClient,
} from '@ferry/testing';
import { mergeErrorGroups } from '@ferry/workspace';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Issue 43, merge and unmerge on the web: the group page's Fingerprints list and its Unmerge
 * buttons, old links of a merged group, and the API's POST /merge and POST /:id/unmerge. The
 * counting itself is tested through the writer (ingest-errors test/merge.test.ts).
 */
describe('merging error groups: page and API', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  async function setUp() {
    const admin = await signedInSeat(web, 'member');
    const { workspace } = admin;
    const make = async (error_class: string, n: number) => {
      const group = await createErrorGroup(web.ctx.db, workspace, {
        error_class,
        latest_message: `${error_class} <b>broke</b>`,
        occurrence_count: n,
      });
      for (let i = 0; i < n; i++) await createErrorOccurrence(web.ctx.db, group);
      return group;
    };
    const target = await make('TypeError', 2);
    const beta = await make('RangeError', 3);
    const gamma = await make('SyntaxError', 1);
    const writer = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
    const reader = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:read'] })).raw;
    return { ...admin, target, beta, gamma, writer, reader };
  }

  const call = (path: string, token: string, body?: unknown, raw?: string) =>
    fetch(`${web.url}/api/v1/errors${path}`, {
      method: body === undefined && raw === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(raw !== undefined
        ? { body: raw }
        : body !== undefined
          ? { body: JSON.stringify(body) }
          : {}),
    });

  it('lists the fingerprints on the group page, unmerges one, and leads old links on', async () => {
    const { client, base, seat, workspace, target, beta, gamma } = await setUp();
    const here = `${base}/errors/${target.id}`;
    const before = await client.get(here);
    expect(before.text).toContain('id="fingerprints-heading">Fingerprints</h2>');
    expect(before.text).toContain('No other group was merged into this one.');

    await mergeErrorGroups(web.ctx.db, {
      workspaceId: workspace.id,
      actor: { kind: 'member', memberId: seat.id, role: seat.role, name: seat.user.name },
      targetId: target.id,
      sourceIds: [beta.id, gamma.id],
    });
    const page = await client.get(here);
    expect(page.status).toBe(200);
    expect(page.text).toContain('2 groups merged into this one');
    expect(page.text.match(/data-testid="merged-fingerprint"/g)).toHaveLength(2);
    expect(page.text).toContain('RangeError');
    expect(page.text).toContain('RangeError &lt;b&gt;broke&lt;/b&gt;');
    expect(page.text).toContain(`by ${seat.user.name}`);
    expect(page.text).toContain('3 occurrences came with it');
    expect(page.text).toContain(`value="${beta.fingerprint}"`);
    expect(page.text).toContain('<dd>6</dd>');

    // The merged group's old page leads to the target.
    const old = await client.get(`${base}/errors/${beta.id}`);
    expect(old.status).toBe(302);
    expect(old.location).toBe(here);

    const unmerged = await client.post(
      `${here}/unmerge`,
      { fingerprint: beta.fingerprint },
      { csrfFrom: here },
    );
    expect(unmerged.status).toBe(303);
    expect(unmerged.location).toBe(here);
    const after = await client.get(here);
    expect(after.text).toContain('Unmerged. Its occurrences from now on make a group of their own');
    expect(after.text).toContain('1 group merged into this one');
    expect(after.text).toContain('<dd>6</dd>');
    expect((await client.get(`${base}/errors/${beta.id}`)).status).toBe(404);

    // A second click (it is no longer held) and the group's own fingerprint: said in a flash.
    await client.post(`${here}/unmerge`, { fingerprint: beta.fingerprint }, { csrfFrom: here });
    expect((await client.get(here)).text).toContain('This group holds no such merged fingerprint.');
    await client.post(`${here}/unmerge`, { fingerprint: target.fingerprint }, { csrfFrom: here });
    expect((await client.get(here)).text).toContain('That is the group’s own fingerprint');
    // No CSRF token: refused.
    const forged = await client.post(`${here}/unmerge`, {
      fingerprint: gamma.fingerprint,
      _csrf: 'forged',
    });
    expect(forged.status).toBe(403);
  });

  it('keeps guests out and hides the Unmerge buttons from who may not triage', async () => {
    const { workspace, base, target, beta } = await setUp();
    await mergeErrorGroups(web.ctx.db, {
      workspaceId: workspace.id,
      actor: { kind: 'api' },
      targetId: target.id,
      sourceIds: [beta.id],
    });
    const guest = await createMember(web.ctx.db, workspace, { role: 'guest' });
    const guestClient = new FormClient(web.url);
    await guestClient.signIn(guest.user.email, guest.user.password);
    const here = `${base}/errors/${target.id}`;
    const refused = await guestClient.post(
      `${here}/unmerge`,
      { fingerprint: beta.fingerprint },
      { csrfFrom: base },
    );
    expect(refused.status).toBe(403);
    const held = await web.ctx.db
      .selectFrom('error_group_fingerprints')
      .select('fingerprint')
      .where('group_id', '=', target.id)
      .execute();
    expect(held).toEqual([{ fingerprint: beta.fingerprint }]);
  });

  it('merges and unmerges through the API, and answers old ids with the target', async () => {
    const { target, beta, gamma, writer, reader } = await setUp();
    type GroupBody = {
      group: {
        id: string;
        occurrence_count: number;
        fingerprints?: { fingerprint: string; own: boolean; occurrence_count: number | null }[];
        merged_fingerprints?: number;
      };
      merged?: number;
    };
    const merged = await call('/merge', writer, {
      target_id: target.id,
      group_ids: [beta.id, gamma.id],
    });
    expect(merged.status).toBe(200);
    const body = (await merged.json()) as GroupBody;
    expect(body.merged).toBe(2);
    expect(body.group).toMatchObject({ id: target.id, occurrence_count: 6 });

    // Again (a retry): nothing more merged.
    const again = await call('/merge', writer, { target_id: target.id, group_ids: [beta.id] });
    expect(((await again.json()) as GroupBody).merged).toBe(0);

    // The group's JSON lists its fingerprints; an old id answers the target.
    const read = await call(`/${beta.id}`, reader);
    expect(read.status).toBe(200);
    const group = ((await read.json()) as GroupBody).group;
    expect(group.id).toBe(target.id);
    expect(group.merged_fingerprints).toBe(2);
    expect(group.fingerprints?.[0]).toMatchObject({ fingerprint: target.fingerprint, own: true });
    expect(group.fingerprints?.map((f) => f.fingerprint).sort()).toEqual(
      [target.fingerprint, beta.fingerprint, gamma.fingerprint].sort(),
    );

    const unmerged = await call(`/${target.id}/unmerge`, writer, {
      fingerprint: gamma.fingerprint,
    });
    expect(unmerged.status).toBe(200);
    const split = ((await unmerged.json()) as GroupBody).group;
    expect(split).toMatchObject({ id: target.id, occurrence_count: 6, merged_fingerprints: 1 });
    expect((await call(`/${gamma.id}`, reader)).status).toBe(404);
  });

  it('answers bad merge and unmerge bodies with 422s, unknown ids with 404, read tokens with 403', async () => {
    const { target, beta, writer, reader } = await setUp();
    const other = await signedInSeat(web, 'admin');
    const elsewhere = await createErrorGroup(web.ctx.db, other.workspace);
    const refusals: [unknown, number, string][] = [
      [{}, 422, 'target_id'],
      [{ target_id: target.id }, 422, 'group_ids'],
      [{ target_id: target.id, group_ids: [] }, 422, 'group_ids'],
      [{ target_id: target.id, group_ids: 'egr_x' }, 422, 'group_ids'],
      [{ target_id: target.id, group_ids: [42] }, 422, 'group_ids.0'],
      [{ target_id: 7, group_ids: [beta.id] }, 422, 'target_id'],
      [{ target_id: target.id, group_ids: [beta.id, target.id] }, 422, 'group_ids'],
      [
        { target_id: target.id, group_ids: Array.from({ length: 1001 }, (_, i) => `egr_${i}`) },
        422,
        'group_ids',
      ],
      [[target.id], 422, '_'],
      [{ target_id: elsewhere.id, group_ids: [beta.id] }, 404, ''],
      [{ target_id: target.id, group_ids: [elsewhere.id] }, 404, ''],
      [{ target_id: 'egr_nope', group_ids: [beta.id] }, 404, ''],
    ];
    for (const [body, status, field] of refusals) {
      const res = await call('/merge', writer, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      const error = (await res.json()) as { error: { fields?: Record<string, string> } };
      if (field) expect(error.error.fields?.[field], JSON.stringify(body)).toBeTruthy();
    }
    expect((await call('/merge', writer, undefined, '{not json')).status).toBe(400);
    expect(
      (await call('/merge', reader, { target_id: target.id, group_ids: [beta.id] })).status,
    ).toBe(403);
    for (const [body, status] of [
      [{}, 422],
      [{ fingerprint: 5 }, 422],
      [{ fingerprint: '' }, 422],
      [{ fingerprint: target.fingerprint }, 422],
      [{ fingerprint: 'not-merged-here' }, 404],
    ] as const) {
      const res = await call(`/${target.id}/unmerge`, writer, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
    }
    expect(
      (await call(`/${elsewhere.id}/unmerge`, writer, { fingerprint: elsewhere.fingerprint }))
        .status,
    ).toBe(404);
    expect((await call(`/${target.id}/unmerge`, reader, { fingerprint: 'x' })).status).toBe(403);
    // Nothing changed.
    const rows = await web.ctx.db
      .selectFrom('error_groups')
      .select('id')
      .where('id', 'in', [target.id, beta.id])
      .execute();
    expect(rows).toHaveLength(2);
  });
});
