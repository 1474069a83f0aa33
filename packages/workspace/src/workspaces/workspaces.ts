import { randomBytes } from 'node:crypto';
import { AppError, isId, newId } from '@ferry/core';
import type { Db, Member, Role, User, Workspace } from '@ferry/db';
import { z } from 'zod';
import { joinDefaultRoom } from '../members/members.js';
import { splitWorkspace, workspaceJoinColumns } from './workspace-join.js';
import { listPage, pageWindow, type PageRequest } from '../common/paging.js';

/** A workspace name's limit: the form says it, and a longer name is refused, never cut. */
export const WORKSPACE_NAME_MAX = 80;

export const createWorkspaceSchema = z.object({
  name: z
    .string('Give the workspace a name.')
    .trim()
    .min(1, 'Give the workspace a name.')
    .max(WORKSPACE_NAME_MAX, {
      error: (issue) =>
        `Use at most ${WORKSPACE_NAME_MAX} characters: this name has ${typeof issue.input === 'string' ? [...issue.input].length : 'more'}.`,
    }),
});

export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return slug || 'workspace';
}

/** The widget's public key: not a secret (it sits in the embed snippet), just unguessable. */
export function newPublicKey(): string {
  return `pk_${randomBytes(16).toString('hex')}`;
}

export interface WorkspaceWithOwner {
  workspace: Workspace;
  owner: Member;
  generalRoomId: string;
}

/** A workspace, its owner's seat and a #general room the owner has joined, in one transaction. */
export async function createWorkspace(
  db: Db,
  user: Pick<User, 'id'>,
  name: string,
): Promise<WorkspaceWithOwner> {
  return db.transaction().execute(async (trx) => {
    const workspace = await trx
      .insertInto('workspaces')
      .values({ id: newId('workspace'), name, slug: slugify(name), public_key: newPublicKey() })
      .returningAll()
      .executeTakeFirstOrThrow();
    const owner = await trx
      .insertInto('members')
      .values({
        id: newId('member'),
        workspace_id: workspace.id,
        user_id: user.id,
        role: 'owner',
        left_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const room = await trx
      .insertInto('rooms')
      .values({
        id: newId('room'),
        workspace_id: workspace.id,
        kind: 'channel',
        name: 'general',
        created_by: owner.id,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('room_members')
      .values({ room_id: room.id, member_id: owner.id, left_at: null })
      .execute();
    return { workspace, owner, generalRoomId: room.id };
  });
}

export interface Membership {
  workspace: Workspace;
  member: Member;
}

/** The user's active seat in a workspace, or undefined (unknown id, never joined, or left). */
export async function findMembership(
  db: Db,
  userId: string,
  workspaceId: string,
): Promise<Membership | undefined> {
  if (!isId(workspaceId, 'workspace')) return undefined;
  const row = await db
    .selectFrom('members')
    .innerJoin('workspaces', 'workspaces.id', 'members.workspace_id')
    .selectAll('members')
    .select(workspaceJoinColumns)
    .where('members.user_id', '=', userId)
    .where('members.workspace_id', '=', workspaceId)
    .where('members.left_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const { workspace, rest: member } = splitWorkspace(row);
  return { member, workspace };
}

/**
 * The signed-in user and their active seat in one workspace, in one read: what every workspace
 * page checks first (the user still exists, the seat is still held). No user: undefined; a user
 * without a seat there: `membership` undefined, as findMembership would say.
 */
export async function findUserAndMembership(
  db: Db,
  userId: string,
  workspaceId: string,
): Promise<{ user: User; membership: Membership | undefined } | undefined> {
  if (!isId(workspaceId, 'workspace')) {
    const user = await db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', userId)
      .executeTakeFirst();
    return user && { user, membership: undefined };
  }
  const row = await db
    .selectFrom('users')
    .leftJoin('members', (join) =>
      join
        .onRef('members.user_id', '=', 'users.id')
        .on('members.workspace_id', '=', workspaceId)
        .on('members.left_at', 'is', null),
    )
    .leftJoin('workspaces', 'workspaces.id', 'members.workspace_id')
    .selectAll('users')
    .select([
      'members.id as m_id',
      'members.workspace_id as m_workspace_id',
      'members.user_id as m_user_id',
      'members.role as m_role',
      'members.joined_at as m_joined_at',
      'members.left_at as m_left_at',
    ])
    .select(workspaceJoinColumns)
    .where('users.id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { m_id, m_workspace_id, m_user_id, m_role, m_joined_at, m_left_at, ...rest } = row;
  const {
    ws_id,
    ws_slug,
    ws_name,
    ws_public_key,
    ws_settings,
    ws_dispatch_member_id,
    ws_created_at,
    ...userColumns
  } = rest;
  const user: User = userColumns;
  if (
    m_id === null ||
    m_workspace_id === null ||
    m_user_id === null ||
    m_role === null ||
    m_joined_at === null ||
    ws_id === null ||
    ws_slug === null ||
    ws_name === null ||
    ws_public_key === null ||
    ws_settings === null ||
    ws_created_at === null
  )
    return { user, membership: undefined };
  const member: Member = {
    id: m_id,
    workspace_id: m_workspace_id,
    user_id: m_user_id,
    role: m_role,
    joined_at: m_joined_at,
    left_at: m_left_at,
  };
  const { workspace } = splitWorkspace({
    ws_id,
    ws_slug,
    ws_name,
    ws_public_key,
    ws_settings,
    ws_dispatch_member_id,
    ws_created_at,
  });
  return { user, membership: { member, workspace } };
}

/** The user's workspaces by name, with their role in each: a page of them. */
export async function listWorkspacesForUser(db: Db, userId: string, request: PageRequest = {}) {
  const { limit, offset } = pageWindow(request);
  const seats = db
    .selectFrom('members')
    .where('members.user_id', '=', userId)
    .where('members.left_at', 'is', null);
  const [items, counted] = await Promise.all([
    seats
      .innerJoin('workspaces', 'workspaces.id', 'members.workspace_id')
      .select(['workspaces.id', 'workspaces.slug', 'workspaces.name', 'members.role'])
      .orderBy('workspaces.name')
      .orderBy('workspaces.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    seats.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return listPage(items, Number(counted.n), request);
}

const memberColumns = [
  'members.id',
  'members.role',
  'members.joined_at',
  'users.name',
  'users.email',
] as const;

/** The workspace's active members by name: a page of them. */
export async function listMembers(db: Db, workspaceId: string, request: PageRequest = {}) {
  const { limit, offset } = pageWindow(request);
  const active = db
    .selectFrom('members')
    .where('members.workspace_id', '=', workspaceId)
    .where('members.left_at', 'is', null);
  const [items, counted] = await Promise.all([
    active
      .innerJoin('users', 'users.id', 'members.user_id')
      .select(memberColumns)
      .orderBy('users.name')
      .orderBy('members.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    active.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return listPage(items, Number(counted.n), request);
}

/** One active member of the workspace, as the members list shows them; undefined otherwise. */
export function findListedMember(db: Db, workspaceId: string, memberId: string) {
  if (!isId(memberId, 'member')) return Promise.resolve(undefined);
  return db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select(memberColumns)
    .where('members.workspace_id', '=', workspaceId)
    .where('members.id', '=', memberId)
    .where('members.left_at', 'is', null)
    .executeTakeFirst();
}

export const addMemberSchema = z.object({
  email: z.email('Enter a valid email address.').trim().max(254, 'At most 254 characters.'),
  role: z.enum(['admin', 'member', 'guest'], 'Pick a role.'),
});

/**
 * Adds an existing account to the workspace (or re-seats one who left) with `role`, and seats it
 * in the default room. Someone who already has a seat keeps it as it is: adding them again is an
 * error that says so, never a silent role change (roles change through changeRole).
 */
export async function addMember(
  db: Db,
  workspaceId: string,
  email: string,
  role: Role,
): Promise<Member> {
  const user = await db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (!user) {
    throw new AppError(
      'validation_failed',
      'No account uses this email. Ask them to sign up first, or send them an invite link.',
      {
        fields: { email: 'No account uses this email yet. An invite link lets them sign up.' },
      },
    );
  }
  return seatUser(db, workspaceId, user.id, role);
}

/**
 * Seats a user with `role` (a new seat, or the old one of someone who left) and joins the default
 * room, in one transaction. An active seat is left alone: 409 naming its role.
 */
export async function seatUser(
  db: Db,
  workspaceId: string,
  userId: string,
  role: Role,
): Promise<Member> {
  return db.transaction().execute(async (trx) => {
    const seated = await trx
      .insertInto('members')
      .values({
        id: newId('member'),
        workspace_id: workspaceId,
        user_id: userId,
        role,
        left_at: null,
      })
      .onConflict((oc) =>
        oc
          .columns(['workspace_id', 'user_id'])
          .doUpdateSet({ role, left_at: null, joined_at: new Date() })
          .where('members.left_at', 'is not', null),
      )
      .returningAll()
      .executeTakeFirst();
    if (!seated) {
      const current = await trx
        .selectFrom('members')
        .select('role')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      throw new AppError(
        'conflict',
        `Already a member, as ${current.role}. Change their role in the list instead.`,
        { fields: { email: `Already a member, as ${current.role}. Change the role in the list.` } },
      );
    }
    await joinDefaultRoom(trx, seated);
    return seated;
  });
}
