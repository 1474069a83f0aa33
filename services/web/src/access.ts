import { access, type Access } from '@ferry/http';
import type { TokenScope } from '@ferry/db';
import { requireToken, type Capability } from '@ferry/workspace';
import type { WebDeps } from './deps.js';
import { requireCapability, requireUser } from './request-context.js';

/**
 * The web service's access rules, for route tables (@ferry/http route-table.ts). Workspace pages
 * are mounted behind loadWorkspace, so every rule there starts from "holds a seat".
 */

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
export function tokenScope(deps: Pick<WebDeps, 'db' | 'logger'>, scope: TokenScope): Access {
  return access.scope(scope, requireToken(deps, scope));
}
