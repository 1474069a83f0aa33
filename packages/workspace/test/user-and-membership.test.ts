import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import { createMember, createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import { findMembership, findUser, findUserAndMembership } from '../src/index.js';

/**
 * Workspace pages read the user and their seat in one statement (findUserAndMembership); it must
 * say exactly what the two reads it replaces say: findUser, then findMembership.
 */
describe('the user and their seat, in one read', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  async function separately(userId: string, workspaceId: string) {
    const user = await findUser(ctx.db, userId);
    return user && { user, membership: await findMembership(ctx.db, userId, workspaceId) };
  }

  it('agrees with findUser and findMembership for a seat, none, one left, and bad ids', async () => {
    const workspace = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const admin = await createMember(ctx.db, workspace, { role: 'admin' });
    const gone = await createMember(ctx.db, workspace, { role: 'member', left: true });
    // The same user with a seat in another workspace too: only the one asked about comes back.
    await createMember(ctx.db, other, { user: admin.user, role: 'guest' });
    const cases: [string, string][] = [
      [admin.user.id, workspace.id],
      [admin.user.id, other.id],
      [gone.user.id, workspace.id],
      [gone.user.id, other.id],
      [admin.user.id, newId('workspace')],
      [admin.user.id, 'not-a-workspace-id'],
      [newId('user'), workspace.id],
    ];
    for (const [userId, workspaceId] of cases) {
      const together = await findUserAndMembership(ctx.db, userId, workspaceId);
      expect({ userId, workspaceId, together }).toEqual({
        userId,
        workspaceId,
        together: await separately(userId, workspaceId),
      });
    }
    const seated = await findUserAndMembership(ctx.db, admin.user.id, workspace.id);
    expect(seated?.membership?.member).toMatchObject({ id: admin.id, role: 'admin' });
    expect(seated?.membership?.workspace).toMatchObject({ id: workspace.id, slug: workspace.slug });
    expect(seated?.membership?.workspace.created_at).toBeInstanceOf(Date);
  });
});
