export {
  AGENT_LIMITS,
  INVITE_LIMITS,
  createdInLastHour,
  hourlyLimitReached,
  lockCreations,
} from './creation-limits.js';
export type { HourlyCount } from './creation-limits.js';
export { splitWorkspace, workspaceJoinColumns } from './workspace-join.js';
export {
  addMember,
  addMemberSchema,
  createWorkspace,
  createWorkspaceSchema,
  findMembership,
  findUserAndMembership,
  listMembers,
  listWorkspacesForUser,
  newPublicKey,
  seatUser,
  slugify,
} from './workspaces.js';
export type { Membership, WorkspaceWithOwner } from './workspaces.js';
