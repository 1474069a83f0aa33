import type { Role } from '@ferry/db';

/**
 * What each role may do, in one place. A capability names the lowest role that holds it;
 * roles above inherit it. Routes ask `can(role, 'x')`, never compare roles themselves.
 */
const RANK: Record<Role, number> = { guest: 0, member: 1, admin: 2, owner: 3 };

export const CAPABILITIES = {
  /** See the channel list and join any channel. Guests see only rooms they were added to. */
  'rooms.browse': 'member',
  'rooms.create': 'member',
  /** Add someone from the workspace to a room one is in (never a direct message). */
  'rooms.manage_people': 'member',
  'feedback.read': 'member',
  'errors.read': 'member',
  /** Resolve, ignore or reopen an error group (the group page's buttons). */
  'errors.triage': 'member',
  /** "Fix with agent": file (or open) the error group's ticket for the agents. */
  'errors.file_ticket': 'member',
  /** Settings > Error alerts: when errors alert, into which room, to which URL. */
  'errors.manage_alerts': 'admin',
  /**
   * Settings > Error reporting's data scrubbing: the workspace's own sensitive keys, safe fields
   * and whether the user's IP is kept. Admins, like alerts: a safe field can let personal data in.
   */
  'errors.configure': 'admin',
  'members.manage': 'admin',
  'tokens.manage': 'admin',
  'webhooks.manage': 'admin',
  /** Settings > Event webhooks (issue 44): the workspace's endpoints, their secrets and recovery. */
  'event_webhooks.manage': 'admin',
  'settings.manage': 'admin',
  /** See the GitHub page and connect (or disconnect) one's own GitHub account. */
  'github.authorize': 'member',
  /** Connect the GitHub App, link and enable repositories, pick the dispatch identity. */
  'github.manage': 'admin',
  /** The ticket page's "Dispatch to GitHub" (runs as the identity, or as the clicker). */
  'feedback.dispatch': 'member',
  /** The Ops page: queue health, this workspace's ingest, delivery and agent figures. */
  'ops.read': 'admin',
  /** Retry a failed job whose payload belongs to this workspace, from the Ops page. */
  'ops.retry': 'admin',
  /** Change a ticket's status (new, triaged, closed) and assign it to a member. */
  'feedback.triage': 'member',
} as const satisfies Record<string, Role>;

export type Capability = keyof typeof CAPABILITIES;

export function can(role: Role, capability: Capability): boolean {
  return RANK[role] >= RANK[CAPABILITIES[capability]];
}

export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'guest'];

export function outranks(a: Role, b: Role): boolean {
  return RANK[a] > RANK[b];
}
