import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import { migrations, type NewErrorOccurrence, type Workspace } from '@ferry/db';
import {
  createTestContext,
  createVisitor,
  createWorkspace,
  type TestContext,
} from '@ferry/testing';
import { fingerprint } from '../src/fingerprint.js';
import { parseBatch, type StoredReport } from '../src/report.js';

describe('error tables', () => {
  let t: TestContext;
  let workspace: Workspace;
  const receivedAt = new Date('2026-11-22T12:00:00.000Z');

  beforeAll(async () => {
    t = await createTestContext();
    workspace = await createWorkspace(t.db);
  });
  afterAll(async () => {
    await t.close();
  });

  const retained = async (workspaceId: string): Promise<string | undefined> =>
    (
      await t.db
        .selectFrom('error_workspace_stats')
        .select('retained_occurrences')
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst()
    )?.retained_occurrences;

  async function insertGroup(workspaceId: string, report: StoredReport): Promise<string> {
    const group = await t.db
      .insertInto('error_groups')
      .values({
        id: newId('errorGroup'),
        workspace_id: workspaceId,
        fingerprint: fingerprint(report),
        error_class: report.error_class,
        latest_message: report.message,
        source: report.source,
        occurrence_count: 1,
        first_seen_at: report.occurred_at,
        last_seen_at: report.occurred_at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return group.id;
  }

  const occurrence = (
    workspaceId: string,
    groupId: string,
    report: StoredReport,
    extra: Partial<NewErrorOccurrence> = {},
  ): NewErrorOccurrence => ({
    id: newId('errorOccurrence'),
    workspace_id: workspaceId,
    group_id: groupId,
    visitor_id: null,
    ...report,
    context: JSON.stringify(report.context),
    received_at: receivedAt,
    ...extra,
  });

  it('is part of the migration list, after the foundation', () => {
    const names = Object.keys(migrations);
    expect(names).toContain('2026_11_22_0001_errors');
    expect(names.indexOf('2026_11_22_0001_errors')).toBeGreaterThan(
      names.indexOf('2026_11_21_0001_foundation'),
    );
  });

  it('stores a group and an occurrence exactly as coerced, idempotently on the id', async () => {
    const visitor = await createVisitor(t.db, workspace);
    const [report] = parseBatch(
      {
        error_class: 'TypeError',
        message: 'x is undefined \u0000 \ud800',
        backtrace: ['at f (app.js:1:2)', 'at g (app.js:3:4)'],
        url: 'https://app.example.test/',
        request_method: 'GET',
        request_path: '/',
        environment: 'browser',
        app_version: '2.0.0',
        context: { user: { id: 1, tags: ['a', 'b\u0000'] }, note: 'n'.repeat(600), ok: true },
        occurred_at: '2026-11-22T11:00:00.123Z',
        source: 'js',
      },
      receivedAt,
    ).reports;
    const groupId = await insertGroup(workspace.id, report!);
    const row = occurrence(workspace.id, groupId, report!, { visitor_id: visitor.id });

    for (let i = 0; i < 2; i++) {
      await t.db
        .insertInto('error_occurrences')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    }

    const stored = await t.db
      .selectFrom('error_occurrences')
      .selectAll()
      .where('group_id', '=', groupId)
      .execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toEqual({
      id: row.id,
      workspace_id: workspace.id,
      group_id: groupId,
      visitor_id: visitor.id,
      ...report,
      occurred_at: new Date(report!.occurred_at),
      received_at: receivedAt,
      // A report from /ingest/errors has no structured detail (issue 41).
      detail: null,
      tags: null,
      // Filled by the column default when the insert commits (the Ops page's "stored").
      stored_at: expect.any(Date) as Date,
    });
    expect(stored[0]!.id).toMatch(/^err_/);
    expect(groupId).toMatch(/^egr_/);
    // Only rows actually inserted are counted: the repeated insert was a no-op.
    expect(await retained(workspace.id)).toBe('1');

    // A deleted visitor leaves the occurrence in place, without a visitor.
    await t.db.deleteFrom('visitors').where('id', '=', visitor.id).execute();
    const after = await t.db
      .selectFrom('error_occurrences')
      .select('visitor_id')
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(after.visitor_id).toBeNull();
  });

  it('allows one group per fingerprint in a workspace', async () => {
    const [report] = parseBatch({ error_class: 'Dup', message: 'm' }, receivedAt).reports;
    await insertGroup(workspace.id, report!);
    await expect(insertGroup(workspace.id, report!)).rejects.toThrow(/unique/i);
    const other = await createWorkspace(t.db);
    await expect(insertGroup(other.id, report!)).resolves.toMatch(/^egr_/);
  });

  it('keeps the retained count in step with inserts and deletes, per workspace', async () => {
    const [a, b] = await Promise.all([createWorkspace(t.db), createWorkspace(t.db)]);
    const { reports } = parseBatch(
      { errors: Array.from({ length: 5 }, (_, i) => ({ error_class: `E${i}` })) },
      receivedAt,
    );
    const rows: NewErrorOccurrence[] = [];
    for (const report of reports) {
      for (const ws of [a, b]) {
        rows.push(occurrence(ws.id, await insertGroup(ws.id, report), report));
      }
    }
    await t.db.insertInto('error_occurrences').values(rows).execute();
    expect([await retained(a.id), await retained(b.id)]).toEqual(['5', '5']);

    // Prune a's two oldest (ids are time-ordered).
    const oldest = await t.db
      .selectFrom('error_occurrences')
      .select('id')
      .where('workspace_id', '=', a.id)
      .orderBy('id')
      .limit(2)
      .execute();
    await t.db
      .deleteFrom('error_occurrences')
      .where(
        'id',
        'in',
        oldest.map((r) => r.id),
      )
      .execute();
    expect([await retained(a.id), await retained(b.id)]).toEqual(['3', '5']);

    // Deleting a workspace takes its groups, occurrences and counter with it.
    await t.db.deleteFrom('workspaces').where('id', '=', b.id).execute();
    const left = await t.db
      .selectFrom('error_occurrences')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', b.id)
      .executeTakeFirstOrThrow();
    expect(left.n).toBe('0');
    expect(await retained(b.id)).toBeUndefined();
    expect(await retained(a.id)).toBe('3');
  });

  it('refuses a source outside the seven', async () => {
    const [report] = parseBatch({ error_class: 'S' }, receivedAt).reports;
    await expect(
      insertGroup(workspace.id, { ...report!, source: 'cobol' as StoredReport['source'] }),
    ).rejects.toThrow(/check constraint/);
  });
});
