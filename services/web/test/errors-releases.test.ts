import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import { createApiToken, createErrorGroup, createMember } from '@ferry/testing';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Issue 43, releases on the web: Errors → Releases, a group's first and last release, and
 * "Resolve in next release" on the group page and through PATCH /api/v1/errors/:id. The writer's
 * side (what reopens) is services/ingest-errors/test/releases.test.ts.
 */
describe('error releases pages and API', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  async function setUp() {
    const admin = await signedInSeat(web, 'admin');
    const { db } = web.ctx;
    const ws = admin.workspace.id;
    await db
      .insertInto('releases')
      .values([
        { workspace_id: ws, version: '1.9.0', first_event_at: new Date(Date.now() - 3_600_000) },
        { workspace_id: ws, version: '1.10.0<b>', first_event_at: null },
        { workspace_id: ws, version: '1.10.0', first_event_at: new Date() },
      ])
      .execute();
    await db
      .insertInto('release_deploys')
      .values({
        id: newId('releaseDeploy'),
        workspace_id: ws,
        version: '1.10.0',
        environment: 'production',
        name: 'Friday deploy',
        date_finished: new Date(),
      })
      .execute();
    const group = await createErrorGroup(db, admin.workspace, { error_class: 'TypeError' });
    await db
      .updateTable('error_groups')
      .set({ first_release: '1.9.0', last_release: '1.10.0', regressed_in_release: '1.10.0' })
      .where('id', '=', group.id)
      .execute();
    return { ...admin, group };
  }

  it('lists releases newest first with first event, deploys, new and regressed groups', async () => {
    const { client, base } = await setUp();
    const page = await client.get(`${base}/errors/releases`);
    expect(page.status).toBe(200);
    const rows = [...page.text.matchAll(/data-testid="release" data-version="([^"]*)"/g)].map(
      (m) => m[1],
    );
    // 1.10.0 is semver-newer than 1.9.0; "1.10.0<b>" is no version: placed by first seen.
    expect(rows.indexOf('1.10.0')).toBeLessThan(rows.indexOf('1.9.0'));
    expect(rows).toContain('1.10.0&lt;b&gt;');
    expect(page.text).not.toContain('1.10.0<b>');
    expect(page.text).toContain('production (Friday deploy)');
    expect(page.text).toMatch(
      /data-version="1\.9\.0"[\s\S]*?data-label="New" class="num">\s*1\s*</,
    );
    expect(page.text).toMatch(
      /data-version="1\.10\.0"[\s\S]*?data-label="Regressed" class="num">\s*1\s*</,
    );
    expect(page.text).toContain('q=release%3A1.10.0');
  });

  it('shows first and last release, and resolves in next release from the group page', async () => {
    const { client, base, group } = await setUp();
    const here = `${base}/errors/${group.id}`;
    const page = await client.get(here);
    expect(page.text).toMatch(/data-testid="first-release">\s*<code>1\.9\.0<\/code>/);
    expect(page.text).toMatch(/data-testid="last-release">\s*<code>1\.10\.0<\/code>/);
    expect(page.text).toContain('Resolve in next release');

    const posted = await client.post(
      `${here}/status`,
      { status: 'resolved', resolve_in: 'next_release' },
      { csrfFrom: here },
    );
    expect(posted.status).toBe(303);
    const after = await client.get(here);
    expect(after.text).toContain('Resolved in the release after 1.10.0');
    expect(after.text).toMatch(/in the release after\s*<code>1\.10\.0<\/code>/);
  });

  it('PATCH resolve_in: next_release; bad or lone resolve_in is a 422; no release is a 422', async () => {
    const { workspace, group } = await setUp();
    const writer = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
    const patch = (id: string, body: unknown) =>
      fetch(`${web.url}/api/v1/errors/${id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ok = await patch(group.id, { status: 'resolved', resolve_in: 'next_release' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { group: unknown }).group).toMatchObject({
      status: 'resolved',
      resolved_in_release: '1.10.0',
      first_release: '1.9.0',
      last_release: '1.10.0',
    });
    const bad = await patch(group.id, { status: 'resolved', resolve_in: 'someday' });
    expect(bad.status).toBe(422);
    const lone = await patch(group.id, { status: 'ignored', resolve_in: 'next_release' });
    expect(lone.status).toBe(422);
    expect(JSON.stringify(await lone.json())).toContain('goes with');

    const empty = await signedInSeat(web, 'admin');
    const token = (await createApiToken(web.ctx.db, empty.workspace, { scopes: ['tenant:write'] }))
      .raw;
    const other = await createErrorGroup(web.ctx.db, empty.workspace);
    const none = await fetch(`${web.url}/api/v1/errors/${other.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'resolved', resolve_in: 'next_release' }),
    });
    expect(none.status).toBe(422);
    expect(await none.text()).toContain('No release is known');
    // With an assignee too: refused as a whole, the assignment is not applied either.
    const seat = await createMember(web.ctx.db, empty.workspace, { role: 'member' });
    const both = await fetch(`${web.url}/api/v1/errors/${other.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        status: 'resolved',
        resolve_in: 'next_release',
        assignee_id: seat.id,
      }),
    });
    expect(both.status).toBe(422);
    const row = await web.ctx.db
      .selectFrom('error_groups')
      .select(['assignee_member_id', 'status'])
      .where('id', '=', other.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ assignee_member_id: null, status: 'unresolved' });
  });
});
