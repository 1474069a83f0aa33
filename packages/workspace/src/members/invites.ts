import { AppError, generateSecret, hashSecret, newId, type SecretBox } from '@ferry/core';
import type { Db, InviteRole, Member, Workspace, WorkspaceInvite } from '@ferry/db';
import { z } from 'zod';
import {
  createdInLastHour,
  hourlyLimitReached,
  INVITE_LIMITS,
  lockCreations,
} from '../workspaces/creation-limits.js';
import { seatUser } from '../workspaces/workspaces.js';
import { listPage, pageWindow, type ListPage, type PageRequest } from '../common/paging.js';

/**
 * Invite links: an admin makes a link with a role and an expiry; whoever opens it, signed in or
 * after signing up, joins the workspace with that role until it expires or is revoked. A link may
 * be used by many people (as a team's invite link is); someone already in the workspace keeps
 * their seat and role.
 */

export const INVITE_EXPIRIES = [
  { days: 1, label: '1 day' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
] as const;

export const createInviteSchema = z.object({
  role: z.enum(['admin', 'member', 'guest'], 'Pick a role.'),
  expires_in_days: z.coerce
    .number('Pick when the link expires.')
    .refine((days) => INVITE_EXPIRIES.some((expiry) => expiry.days === days), {
      message: 'Pick when the link expires.',
    }),
});

/** The token's kind prefix: `inv_…` in the link. */
const INVITE_TOKEN_PREFIX = 'inv';

export function invitePath(token: string): string {
  return `/invite/${encodeURIComponent(token)}`;
}

/**
 * Makes a link, within the workspace's limits (INVITE_LIMITS): a 429 AppError says which one
 * and what to do. Links of one workspace are made one at a time, so the counts hold.
 */
export async function createInvite(
  db: Db,
  box: SecretBox,
  input: { workspaceId: string; role: InviteRole; expiresInDays: number; createdBy: string },
): Promise<{ invite: WorkspaceInvite; token: string }> {
  const token = generateSecret(INVITE_TOKEN_PREFIX);
  const invite = await db.transaction().execute(async (trx) => {
    await lockCreations(trx, 'invites', input.workspaceId);
    await refuseBeyondInviteLimits(trx, input.workspaceId);
    return trx
      .insertInto('workspace_invites')
      .values({
        id: newId('invite'),
        workspace_id: input.workspaceId,
        role: input.role,
        token_hash: hashSecret(token),
        token_sealed: box.encrypt(token),
        created_by: input.createdBy,
        expires_at: new Date(Date.now() + input.expiresInDays * 86_400_000),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { invite, token };
}

async function refuseBeyondInviteLimits(trx: Db, workspaceId: string): Promise<void> {
  const live = await trx
    .selectFrom('workspace_invites')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .executeTakeFirstOrThrow();
  if (Number(live.count) >= INVITE_LIMITS.live) {
    throw new AppError(
      'limit_reached',
      `This workspace has ${INVITE_LIMITS.live} live invite links, the most it may have. Revoke one you no longer need (each link can be used by many people), then make another.`,
    );
  }
  const recent = await createdInLastHour(trx, 'workspace_invites', workspaceId);
  if (recent.count >= INVITE_LIMITS.perHour) {
    throw hourlyLimitReached(
      INVITE_LIMITS.perHour,
      'invite links',
      recent.retryAfterSeconds,
      'Meanwhile, copy a link you already made: each can be used by many people.',
    );
  }
}

export interface InviteListItem {
  id: string;
  role: InviteRole;
  /** The link's path, to copy again. */
  path: string;
  expiresAt: Date;
  joinedCount: number;
  createdByName: string | null;
}

/** The workspace's links that still work, newest first: a page of them. */
export async function listLiveInvites(
  db: Db,
  box: SecretBox,
  workspaceId: string,
  request: PageRequest = {},
): Promise<ListPage<InviteListItem>> {
  const { limit, offset } = pageWindow(request);
  const live = db
    .selectFrom('workspace_invites as i')
    .where('i.workspace_id', '=', workspaceId)
    .where('i.revoked_at', 'is', null)
    .where('i.expires_at', '>', new Date());
  const [rows, counted] = await Promise.all([
    live
      .leftJoin('members as m', 'm.id', 'i.created_by')
      .leftJoin('users as u', 'u.id', 'm.user_id')
      .select(['i.id', 'i.role', 'i.token_sealed', 'i.expires_at', 'i.joined_count', 'u.name'])
      .orderBy('i.created_at', 'desc')
      .orderBy('i.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    live.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const items = rows.map((row) => ({
    id: row.id,
    role: row.role,
    path: invitePath(box.decrypt(row.token_sealed)),
    expiresAt: row.expires_at,
    joinedCount: row.joined_count,
    createdByName: row.name,
  }));
  return listPage(items, Number(counted.n), request);
}

export async function revokeInvite(db: Db, workspaceId: string, inviteId: string): Promise<void> {
  const result = await db
    .updateTable('workspace_invites')
    .set({ revoked_at: new Date() })
    .where('id', '=', inviteId)
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new AppError('not_found', 'No such invite link.');
}

export interface OpenedInvite {
  invite: WorkspaceInvite;
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
}

const INVALID_INVITE =
  'This invite link does not work any more: it expired, was revoked, or is mistyped. Ask for a new one.';

/** The invite a link's token opens, while it works; 404 otherwise (all alike). */
export async function openInvite(db: Db, token: string): Promise<OpenedInvite> {
  if (!token.startsWith(`${INVITE_TOKEN_PREFIX}_`) || token.length > 100) {
    throw new AppError('not_found', INVALID_INVITE);
  }
  const row = await db
    .selectFrom('workspace_invites as i')
    .innerJoin('workspaces as w', 'w.id', 'i.workspace_id')
    .selectAll('i')
    .select(['w.slug as workspace_slug', 'w.name as workspace_name'])
    .where('i.token_hash', '=', hashSecret(token))
    .where('i.revoked_at', 'is', null)
    .where('i.expires_at', '>', new Date())
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', INVALID_INVITE);
  const { workspace_slug: slug, workspace_name: name, ...invite } = row;
  return { invite, workspace: { id: invite.workspace_id, slug, name } };
}

/**
 * The signed-in user takes the invite: a seat with its role, or, when they already have one, the
 * seat they have (`alreadyMember`), unchanged.
 */
export async function acceptInvite(
  db: Db,
  token: string,
  userId: string,
): Promise<OpenedInvite & { member: Member | undefined; alreadyMember: boolean }> {
  const opened = await openInvite(db, token);
  const current = await db
    .selectFrom('members')
    .selectAll()
    .where('workspace_id', '=', opened.workspace.id)
    .where('user_id', '=', userId)
    .where('left_at', 'is', null)
    .executeTakeFirst();
  if (current) return { ...opened, member: current, alreadyMember: true };
  const member = await seatUser(db, opened.workspace.id, userId, opened.invite.role);
  await db
    .updateTable('workspace_invites')
    .set((eb) => ({ joined_count: eb('joined_count', '+', 1) }))
    .where('id', '=', opened.invite.id)
    .execute();
  return { ...opened, member, alreadyMember: false };
}
