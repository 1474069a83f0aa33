import type { Member, Role } from '@ferry/db';
import { can, outranks, ROLES } from './capabilities.js';

/**
 * Who may change whose seat: the one place these rules are written. The domain functions
 * (changeRole, removeMember) enforce them inside their transactions; pages ask them which controls
 * to show. Each answers with the refusal a person reads, or undefined when allowed.
 */

type Seat = Pick<Member, 'id' | 'role'>;

/**
 * Owners may give anyone any role (that is how ownership moves). Nobody else may give a role above
 * their own, so a guest or member cannot raise themselves. Anyone may step their own role down.
 * Changing someone else's role needs `members.manage` and a higher role than theirs.
 */
export function roleChangeRefusal(actor: Seat, target: Seat, role: Role): string | undefined {
  if (actor.role === 'owner') return undefined;
  if (outranks(role, actor.role)) {
    return role === 'owner'
      ? 'Only an owner can make someone owner.'
      : `You cannot give a role above your own (${actor.role}).`;
  }
  if (actor.id === target.id) return undefined;
  if (!can(actor.role, 'members.manage'))
    return 'Only admins can change other members\u2019 roles.';
  if (!outranks(actor.role, target.role))
    return `Only an owner can change an ${target.role}'s role.`;
  return undefined;
}

/** The roles `actor` may set on `target`, the current one included (empty: no control at all). */
export function assignableRoles(actor: Seat, target: Seat): Role[] {
  const allowed = ROLES.filter(
    (role) => role === target.role || !roleChangeRefusal(actor, target, role),
  );
  return allowed.length > 1 ? allowed : [];
}

/** Anyone may leave; removing someone else needs `members.manage` and a higher role (owners: any). */
export function removalRefusal(actor: Seat, target: Seat): string | undefined {
  if (actor.id === target.id || actor.role === 'owner') return undefined;
  if (!can(actor.role, 'members.manage')) return 'Only admins can remove other members.';
  if (!outranks(actor.role, target.role)) return `Only an owner can remove an ${target.role}.`;
  return undefined;
}

/**
 * Whether a seat with this role may still hold the API tokens it minted: minting needs
 * `tokens.manage`, and a token must not outlive its maker's right to make it (GitHub's rule for
 * a member who leaves an organization).
 */
export function mayHoldTokens(role: Role | undefined): boolean {
  return role !== undefined && can(role, 'tokens.manage');
}

/**
 * The last owner cannot stop being one, by a role change or by leaving (or being removed): a
 * workspace always has an owner. `owners` are the active owners read under lockSeats.
 */
export function lastOwnerRefusal(
  owners: readonly Seat[],
  target: Seat,
  action: 'change_role' | 'leave',
): string | undefined {
  if (target.role !== 'owner' || !owners.every((seat) => seat.id === target.id)) return undefined;
  return action === 'change_role'
    ? 'A workspace needs an owner. Make someone else owner before changing this role.'
    : 'A workspace needs an owner. Make someone else owner first.';
}
