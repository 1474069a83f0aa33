import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import type { JobPayload } from '@ferry/queues';
import { createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import {
  compareReleases,
  compareSemver,
  listReleases,
  orderReleases,
  resolveInNextRelease,
  setErrorGroupStatus,
} from '@ferry/workspace';
import { createDeploy, createRelease } from '../src/sourcemaps/releases.js';
import { fingerprint } from '../src/fingerprint.js';
import { writeErrors, type WriteErrorsDeps } from '../src/jobs/write-errors.js';
import type { QueuedReport } from '../src/queued.js';
import { parseBatch } from '../src/report.js';

/**
 * Releases as the writer keeps them (issue 43, part 6): a group's first and last release, the
 * releases its events name, and "Resolve in next release" (an occurrence on the release it was
 * resolved in, or an older one, does not reopen the group; one on a newer release does).
 */
describe('error releases', () => {
  let ctx: TestContext;
  let deps: WriteErrorsDeps;

  beforeAll(async () => {
    ctx = await createTestContext();
    deps = { db: ctx.db, logger: ctx.logger, retentionLimit: 20_000, random: () => 1 };
  });
  afterAll(async () => {
    await ctx.close();
  });

  const job = (
    workspaceId: string,
    raw: Record<string, unknown>[],
  ): JobPayload<'error-ingest'> => ({
    workspaceId,
    visitorId: null,
    receivedAt: new Date().toISOString(),
    reports: parseBatch({ errors: raw }, new Date()).reports.map((report): QueuedReport => ({
      ...report,
      id: newId('errorOccurrence'),
      fingerprint: fingerprint(report),
    })),
  });

  const report = (appVersion: string | null, occurredAt = new Date().toISOString()) => ({
    error_class: 'Stripe::CardError',
    message: 'Your card was declined.',
    backtrace: ['app/services/charge.rb:12:in `call`'],
    occurred_at: occurredAt,
    ...(appVersion ? { app_version: appVersion } : {}),
  });

  const write = (workspaceId: string, ...versions: (string | null)[]) =>
    writeErrors(
      deps,
      job(
        workspaceId,
        versions.map((v) => report(v)),
      ),
    );

  async function onlyGroup(workspaceId: string) {
    return ctx.db
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
  }

  it('orders semantic versions, and others by when they were first seen', () => {
    const seen = new Map([
      ['build-b', new Date('2026-11-01')],
      ['build-a', new Date('2026-11-02')],
    ]);
    expect(compareSemver('1.10.0', '1.9.3')).toBeGreaterThan(0);
    expect(compareSemver('v2.0.0-rc.2', '2.0.0-rc.10')).toBeLessThan(0);
    expect(compareSemver('2.0.0', '2.0.0-rc.10')).toBeGreaterThan(0);
    expect(compareSemver('app@1.2.3', '1.2.4')).toBeNull();
    expect(compareReleases('build-a', 'build-b', seen)).toBeGreaterThan(0);
    expect(compareReleases('never-seen', 'build-a', seen)).toBeGreaterThan(0);
    // One total order for lists: semver among the places semver names hold, else first seen.
    const mixed = new Map([
      ['1.10.0', new Date('2026-11-01')],
      ['nightly', new Date('2026-11-02')],
      ['1.9.0', new Date('2026-11-03')],
    ]);
    expect(orderReleases(['1.9.0', 'nightly', '1.10.0'], mixed)).toEqual([
      '1.9.0',
      'nightly',
      '1.10.0',
    ]);
  });

  it('keeps the first and last release on the group', async () => {
    const ws = await createWorkspace(ctx.db);
    const now = Date.now();
    await writeErrors(
      deps,
      job(ws.id, [
        report('1.1.0', new Date(now - 60_000).toISOString()),
        report('1.0.0', new Date(now - 120_000).toISOString()),
      ]),
    );
    let group = await onlyGroup(ws.id);
    expect([group.first_release, group.last_release]).toEqual(['1.0.0', '1.1.0']);
    // A report without a release leaves the last one named; a later one moves it.
    await write(ws.id, null);
    expect((await onlyGroup(ws.id)).last_release).toBe('1.1.0');
    await write(ws.id, '1.2.0');
    group = await onlyGroup(ws.id);
    expect([group.first_release, group.last_release]).toEqual(['1.0.0', '1.2.0']);
  });

  it('resolved in next release: the same or an older release does not reopen it, a newer one does', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, '1.0.0');
    await write(ws.id, '1.1.0');
    const group = await onlyGroup(ws.id);
    const resolved = await resolveInNextRelease(ctx.db, ws.id, group.id);
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.resolved_in_release).toBe('1.1.0');

    await write(ws.id, '1.1.0', '1.0.0', null);
    let after = await onlyGroup(ws.id);
    expect(after.status).toBe('resolved');
    expect(after.regressed_at).toBeNull();
    expect(Number(after.occurrence_count)).toBe(5);

    await write(ws.id, '1.2.0');
    after = await onlyGroup(ws.id);
    expect(after.status).toBe('unresolved');
    expect(after.regressed_at).not.toBeNull();
    expect(after.regressed_in_release).toBe('1.2.0');
    expect(after.resolved_in_release).toBeNull();

    // A plain resolve reopens on any occurrence, as before.
    await setErrorGroupStatus(ctx.db, ws.id, group.id, 'resolved');
    await write(ws.id, '1.0.0');
    expect((await onlyGroup(ws.id)).status).toBe('unresolved');
  });

  it('resolve in next release with names that are not semver: order is first seen', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, 'build-b');
    await write(ws.id, 'build-a');
    const group = await onlyGroup(ws.id);
    expect((await resolveInNextRelease(ctx.db, ws.id, group.id))?.resolved_in_release).toBe(
      'build-a',
    );
    await write(ws.id, 'build-b');
    expect((await onlyGroup(ws.id)).status).toBe('resolved');
    await write(ws.id, 'build-c');
    expect((await onlyGroup(ws.id)).status).toBe('unresolved');
  });

  it('refuses resolve in next release without any release, clearly', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, null);
    const group = await onlyGroup(ws.id);
    await expect(resolveInNextRelease(ctx.db, ws.id, group.id)).rejects.toThrow(
      /No release is known/,
    );
  });

  it('lists releases seen in events or made by sentry-cli, with first event, deploys, new and regressed groups', async () => {
    const ws = await createWorkspace(ctx.db);
    await createRelease(ctx.db, ws.id, { version: '2.0.0' });
    await createDeploy(ctx.db, ws.id, '2.0.0', { environment: 'production', name: 'deploy 7' });
    await write(ws.id, '1.0.0');
    await writeErrors(deps, job(ws.id, [{ ...report('1.1.0'), error_class: 'TypeError' }]));
    const card = await ctx.db
      .selectFrom('error_groups')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .where('first_release', '=', '1.0.0')
      .executeTakeFirstOrThrow();
    await setErrorGroupStatus(ctx.db, ws.id, card.id, 'resolved');
    await write(ws.id, '1.1.0');

    const releases = await listReleases(ctx.db, ws.id);
    expect(releases.map((r) => r.version)).toEqual(['2.0.0', '1.1.0', '1.0.0']);
    const [two, one, zero] = releases;
    expect(two).toMatchObject({ firstEventAt: null, newGroups: 0, regressedGroups: 0 });
    expect(two!.deploys).toEqual([
      expect.objectContaining({ environment: 'production', name: 'deploy 7' }),
    ]);
    expect(one).toMatchObject({ newGroups: 1, regressedGroups: 1 });
    expect(one!.firstEventAt).toBeInstanceOf(Date);
    expect(zero).toMatchObject({ newGroups: 1, regressedGroups: 0, deploys: [] });
  });
});
