import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@ferry/db';
import { createMember, createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import { assignableRoles, changeRole, removalRefusal, removeMember, ROLES } from '../src/index.js';

/**
 * One function decides who may change whose seat (seat-rules.ts); the members page asks it which
 * controls to show, and changeRole / removeMember enforce it. Every actor role × target role ×
 * new role, for someone else and for oneself, against the real database: what the page offers is
 * exactly what the domain then allows.
 */
describe('seat rules: the page and the domain agree', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  /** A workspace with a spare owner (so "last owner" never decides) and the two seats asked about. */
  async function world(actorRole: Role, targetRole: Role, self: boolean) {
    const workspace = await createWorkspace(ctx.db);
    await createMember(ctx.db, workspace, { role: 'owner' });
    const actor = await createMember(ctx.db, workspace, { role: actorRole });
    const target = self ? actor : await createMember(ctx.db, workspace, { role: targetRole });
    return { workspace, actor, target };
  }

  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      () => 'allowed',
      (error: { status?: number }) => `refused ${error.status ?? '?'}`,
    );

  it('offers a role exactly when changeRole gives it', async () => {
    const disagreements: string[] = [];
    for (const actorRole of ROLES) {
      for (const targetRole of ROLES) {
        for (const self of [false, true]) {
          if (self && targetRole !== actorRole) continue;
          for (const role of ROLES) {
            if (role === targetRole) continue;
            const { workspace, actor, target } = await world(actorRole, targetRole, self);
            const offered = assignableRoles(actor, target).includes(role);
            const got = await outcome(changeRole(ctx.db, workspace.id, target.id, role, actor));
            if ((got === 'allowed') !== offered) {
              disagreements.push(
                `${actorRole} -> ${self ? 'self' : targetRole} as ${role}: page ${offered ? 'offers' : 'hides'}, domain ${got}`,
              );
            }
            if (!offered) expect(got).toBe('refused 403');
          }
        }
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('never lets a seat give a role above its own, to anyone, itself included', () => {
    const rank = (role: Role) => ROLES.length - ROLES.indexOf(role);
    for (const actorRole of ROLES) {
      if (actorRole === 'owner') continue;
      for (const targetRole of ROLES) {
        const actor = { id: 'mem_actor', role: actorRole };
        for (const target of [actor, { id: 'mem_target', role: targetRole }]) {
          for (const role of assignableRoles(actor, target)) {
            if (role !== target.role) expect(rank(role)).toBeLessThanOrEqual(rank(actorRole));
          }
        }
      }
    }
  });

  it('offers Remove exactly when removeMember removes', async () => {
    const disagreements: string[] = [];
    for (const actorRole of ROLES) {
      for (const targetRole of ROLES) {
        for (const self of [false, true]) {
          if (self && targetRole !== actorRole) continue;
          const { workspace, actor, target } = await world(actorRole, targetRole, self);
          const offered = !removalRefusal(actor, target);
          const got = await outcome(removeMember(ctx.db, workspace.id, target.id, actor));
          if ((got === 'allowed') !== offered) {
            disagreements.push(
              `${actorRole} removes ${self ? 'self' : targetRole}: page ${offered ? 'offers' : 'hides'}, domain ${got}`,
            );
          }
        }
      }
    }
    expect(disagreements).toEqual([]);
  });
});
