import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, SecretBox } from '@ferry/core';
import { sql } from 'kysely';
import type { Member, Workspace } from '@ferry/db';
import { createMember, createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import { createInvite, INVITE_LIMITS, revokeInvite } from '../src/index.js';

/**
 * Invite links are capped per workspace in createInvite itself, so no route can forget it
 * (issue #20 item 9): a rate of new links per hour and a number of live links.
 */
describe('invite link limits', () => {
  let ctx: TestContext;
  let box: SecretBox;

  beforeAll(async () => {
    ctx = await createTestContext();
    box = new SecretBox(ctx.config.APP_SECRET);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  async function adminOf(): Promise<{ workspace: Workspace; admin: Member }> {
    const workspace = await createWorkspace(ctx.db);
    const admin = await createMember(ctx.db, workspace, { role: 'admin' });
    return { workspace, admin };
  }

  const invite = (workspace: Workspace, admin: Member) =>
    createInvite(ctx.db, box, {
      workspaceId: workspace.id,
      role: 'member',
      expiresInDays: 7,
      createdBy: admin.id,
    });

  async function refusal(attempt: Promise<unknown>): Promise<AppError> {
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }

  it('allows a burst of at most the hourly rate, even concurrently, then answers 429 with Retry-After', async () => {
    const { workspace, admin } = await adminOf();
    const burst = await Promise.allSettled(
      Array.from({ length: INVITE_LIMITS.perHour + 10 }, () => invite(workspace, admin)),
    );
    expect(burst.filter((r) => r.status === 'fulfilled')).toHaveLength(INVITE_LIMITS.perHour);
    const error = await refusal(invite(workspace, admin));
    expect(error.status).toBe(429);
    expect(error.code).toBe('rate_limited');
    expect(error.message).toMatch(/at most 30 invite links an hour/);
    const wait = Number(error.options.headers?.['Retry-After']);
    expect(wait).toBeGreaterThan(3500);
    expect(wait).toBeLessThanOrEqual(3600);
    // Another workspace is not affected.
    const other = await adminOf();
    await expect(invite(other.workspace, other.admin)).resolves.toBeDefined();
  });

  it('caps live links; revoking one makes room for another', async () => {
    const { workspace, admin } = await adminOf();
    const made = [];
    for (let i = 0; i < INVITE_LIMITS.live; i++) {
      // Made over the past day, so the hourly rate is not what stops them.
      made.push(await invite(workspace, admin));
      await sql`update workspace_invites set created_at = now() - interval '1 day'
        where workspace_id = ${workspace.id}`.execute(ctx.db);
    }
    const error = await refusal(invite(workspace, admin));
    expect(error.status).toBe(429);
    expect(error.code).toBe('limit_reached');
    expect(error.message).toMatch(/50 live invite links.*[Rr]evoke/);

    await revokeInvite(ctx.db, workspace.id, made[0]!.invite.id);
    await expect(invite(workspace, admin)).resolves.toBeDefined();
  });
});
