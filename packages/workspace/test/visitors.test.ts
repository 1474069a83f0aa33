import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createDatabaseBefore,
  createTestContext,
  createWorkspace,
  type TestContext,
} from '@ferry/testing';
import { findVisitorId, registerVisitor } from '../src/index.js';

/**
 * Visitor tokens (X-Service-Visitor) are secrets the service only checks, so only their SHA-256
 * hash is stored (DESIGN.md "Secrets only checked"); issue #20 item 8.
 */
describe('visitor tokens', () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  /** Every column of the visitor's row, as text: the raw token must appear in none of them. */
  async function storedRow(db: TestContext['db'], id: string): Promise<string> {
    const { rows } = await sql<{ row: string }>`select v::text as row from visitors v
      where id = ${id}`.execute(db);
    expect(rows).toHaveLength(1);
    return rows[0]!.row;
  }

  it('stores a new visitor without its raw token and finds it by the token', async () => {
    const workspace = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const visitor = await registerVisitor(ctx.db, workspace.id);
    expect(visitor.token).toMatch(/^vt_[A-Za-z0-9_-]{43}$/);
    expect(await storedRow(ctx.db, visitor.id)).not.toContain(visitor.token.slice(3));

    expect(await findVisitorId(ctx.db, workspace.id, visitor.token)).toBe(visitor.id);
    expect(await findVisitorId(ctx.db, other.id, visitor.token)).toBeUndefined();
    expect(await findVisitorId(ctx.db, workspace.id, `${visitor.token}x`)).toBeUndefined();
    expect(await findVisitorId(ctx.db, workspace.id, undefined)).toBeUndefined();
  });

  it('keeps an existing visitor working after the migration, with its token hashed in place', async () => {
    const before = await createDatabaseBefore('2026_11_25_0010_visitor_token_hash');
    try {
      const raw = 'vt_existingVisitorTokenFromBefore0123';
      await sql`insert into workspaces (id, name, slug, public_key)
        values ('wsp_old', 'Old', 'old', 'pk_old')`.execute(before.db);
      await sql`insert into visitors (id, workspace_id, token, name)
        values ('vis_old', 'wsp_old', ${raw}, 'Ada')`.execute(before.db);

      await before.migrateToLatest();

      expect(await storedRow(before.db, 'vis_old')).not.toContain(raw.slice(3));
      expect(await findVisitorId(before.db, 'wsp_old', raw)).toBe('vis_old');
      expect(await findVisitorId(before.db, 'wsp_old', 'vt_someoneElse')).toBeUndefined();
    } finally {
      await before.close();
    }
  });
});
