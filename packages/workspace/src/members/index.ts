export { assignableTo, findAssignable } from './assignable.js';
export { CAPABILITIES, ROLES, can, outranks } from './capabilities.js';
export type { Capability } from './capabilities.js';
export {
  INVITE_EXPIRIES,
  acceptInvite,
  createInvite,
  createInviteSchema,
  invitePath,
  listLiveInvites,
  openInvite,
  revokeInvite,
} from './invites.js';
export type { InviteListItem, OpenedInvite } from './invites.js';
export {
  activeSeatNames,
  changeRole,
  changeRoleSchema,
  defaultRoomId,
  joinDefaultRoom,
  lockSeats,
  memberName,
  removeMember,
} from './members.js';
export { seatRoles } from './seat-roles.js';
export {
  assignableRoles,
  lastOwnerRefusal,
  mayHoldTokens,
  removalRefusal,
  roleChangeRefusal,
} from './seat-rules.js';
export {
  authenticate,
  findUser,
  findUserByEmail,
  signInSchema,
  signUp,
  signUpSchema,
} from './users.js';
export type { SignUpInput } from './users.js';
