import { access, type Access } from '@ferry/http';
import type { RequestHandler } from 'express';
import { AppError } from '@ferry/core';
import { can, findMembership, requireToken, type Capability } from '@ferry/workspace';
import type { Logger } from '@ferry/core';
import type { Db, Member, TokenScope } from '@ferry/db';
import { locals, requireUser } from './request-context.js';

/**
 * The web service's access rules, for route tables (@ferry/http route-table.ts). Workspace pages
 * are mounted behind loadWorkspace, so every rule there starts from "holds a seat".
 */

/**
 * The one capability check, for pages, APIs and sockets alike: an active seat whose role holds it
 * (the role table in @ferry/workspace).
 */
export function seatHolds(member: Pick<Member, 'role'> | undefined, name: Capability): boolean {
  return member !== undefined && can(member.role, name);
}

/** Enforces `capability(name)` on an HTTP route, after loadWorkspace read the seat. */
export function requireCapability(name: Capability): RequestHandler {
  return (_req, res, next) => {
    if (!seatHolds(locals(res).member, name)) {
      throw new AppError('forbidden', 'Your role in this workspace does not allow this.');
    }
    next();
  };
}

/**
 * Enforces `capability(name)` on a socket event: the user's active seat in the payload's
 * workspace, read now (a socket outlives role changes). Not a member and too low a role answer
 * alike, so a workspace's existence is not told.
 */
export async function socketSeatHolds(
  db: Db,
  userId: string,
  workspaceId: string,
  name: Capability,
): Promise<boolean> {
  const membership = await findMembership(db, userId, workspaceId);
  return seatHolds(membership?.member, name);
}

/** Enforces `anySeat` on a socket event: an active seat in the payload's workspace, read now. */
export async function socketHasSeat(db: Db, userId: string, workspaceId: string): Promise<boolean> {
  return (await findMembership(db, userId, workspaceId)) !== undefined;
}

/** A seat whose role holds the capability (the role table in @ferry/workspace). */
export function capability(name: Capability): Access {
  return { kind: 'capability', rule: name, enforce: [requireCapability(name)] };
}

/** Any seat in the workspace: for reads. */
export const anySeat: Access = { kind: 'seat', rule: 'any seat in the workspace', enforce: [] };

/**
 * Any seat, acting on their own things; `rule` names the domain function that decides (ranks,
 * "yourself", room access), so the route cannot forget it.
 */
export function self(rule: string): Access {
  return { kind: 'self', rule, enforce: [] };
}

/** Any signed-in user, with or without a seat. */
export const signedIn: Access = { kind: 'user', rule: 'signed in', enforce: [requireUser] };

/** An API token with this scope (`tenant:write` also grants `tenant:read`). */
export function tokenScope(deps: { db: Db; logger: Logger }, scope: TokenScope): Access {
  return access.scope(scope, requireToken(deps, scope));
}
