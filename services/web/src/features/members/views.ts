import type { Role, Workspace } from '@ferry/db';
import {
  assignableRoles,
  INVITE_EXPIRIES,
  removalRefusal,
  ROLES,
  type InviteListItem,
  type ListPage,
  type listMembers,
} from '@ferry/workspace';
import { confirmLink, confirmPage } from '../../shared/confirm.js';
import { COPY_SCRIPT, copyButton } from '../../shared/copy.js';
import { timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { listFooter } from '../../shared/pager.js';
import {
  csrfField,
  field,
  layout,
  scrollBox,
  workspaceBase,
  type PageContext,
} from '../../shared/layout.js';

/**
 * The workspace's members: roles (changed in place by those allowed), remove or leave, and for
 * admins the form that adds an existing account and the invite links that let anyone sign up.
 */

export interface MembersData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
  /** A page of them (`?page=`). */
  members: Awaited<ReturnType<typeof listMembers>>;
  /** The viewer's own seat. */
  selfId: string;
  selfRole: Role;
  /** The viewer may add and remove others (members.manage). */
  canManage: boolean;
  /** A page of the live invite links (`?invites_page=`; admins only). */
  invites?: ListPage<InviteListItem> | undefined;
  /** PUBLIC_URL, for the invite links' full address. */
  publicUrl: string;
  /** The add form as posted, with its errors. */
  values?: { email?: string | undefined; role?: string | undefined };
  errors?: Record<string, string>;
}

/**
 * An email that may break before its dots and its @ and nowhere else: on a phone's narrow card a
 * long address wraps at those points instead of every few letters.
 */
function breakableEmail(email: string): SafeHtml {
  const parts = email.split(/(?=[.@])/);
  return html`${parts.map((part, i) => html`${i ? html`<wbr />` : ''}${part}`)}`;
}

function roleCell(
  csrf: SafeHtml,
  base: string,
  data: MembersData,
  m: MembersData['members']['items'][number],
) {
  const roles = assignableRoles({ id: data.selfId, role: data.selfRole }, m);
  if (!roles.length) return html`<span class="badge">${m.role}</span>`;
  return html`<form method="post" action="${base}/members/${m.id}/role" class="inline role-form">
    ${csrf}
    <label for="role-${m.id}" class="visually-hidden">Role of ${m.name}</label>
    <select id="role-${m.id}" name="role">
      ${roles.map((role) => html`<option value="${role}" ${role === m.role ? html`selected` : ''}>${role}</option>`)}
    </select>
    <button type="submit" class="secondary small">Change</button>
  </form>`;
}

function addMemberForm(
  csrf: SafeHtml,
  base: string,
  values: { email?: string; role?: string },
  errors: Record<string, string>,
): SafeHtml {
  return html`<section class="card spaced">
    <h2>Add a member</h2>
    <p class="muted">
      Someone who already has a Ferry account. Everyone else: send an invite link.
    </p>
    <form method="post" action="${base}/members" novalidate>
      ${csrf}
      ${field({ label: 'Email', name: 'email', type: 'email', value: values.email, error: errors.email, required: true })}
      ${roleSelect('f-role', 'role', values.role, errors.role)}
      <button type="submit">Add member</button>
    </form>
  </section>`;
}

function roleSelect(id: string, name: string, value: string | undefined, error?: string) {
  return html`<div class="field ${error ? 'has-error' : ''}">
    <label for="${id}">Role</label>
    <select id="${id}" name="${name}">
      ${ROLES.filter((r) => r !== 'owner').map((r) => html`<option value="${r}" ${r === (value ?? 'member') ? html`selected` : ''}>${r}</option>`)}
    </select>
    ${error ? html`<p class="error">${error}</p>` : ''}
  </div>`;
}

function invitesSection(csrf: SafeHtml, base: string, data: MembersData): SafeHtml {
  return html`<section class="card spaced" id="invites">
    <h2>Invite links</h2>
    <p class="muted">
      Anyone with a link can join ${data.workspace.name} with its role until it expires: they sign
      up (or sign in) and land in the workspace. Share it like a password.
    </p>
    ${
      data.invites?.items.length
        ? html`<ul class="invite-list">
            ${data.invites.items.map(
              (invite) =>
                html`<li>
                  <div>
                    <span class="badge">${invite.role}</span>
                    <span class="invite-copy">
                      <input
                        class="invite-url"
                        id="invite-${invite.id}"
                        type="text"
                        readonly
                        aria-label="Invite link (${invite.role})"
                        value="${data.publicUrl}${invite.path}"
                      />
                      ${copyButton(`invite-${invite.id}`, `the ${invite.role} invite link`)}
                    </span>
                    <p class="muted small-text">
                      Expires ${timeAgo(invite.expiresAt)} · ${String(invite.joinedCount)} joined
                      ${invite.createdByName ? html` · made by ${invite.createdByName}` : ''}
                    </p>
                  </div>
                  <details class="confirm">
                    <summary class="button danger small">Revoke…</summary>
                    <div class="confirm-box">
                      <p>Revoke this link? Nobody can join with it any more.</p>
                      <form method="post" action="${base}/members/invites/${invite.id}/revoke">
                        ${csrf}<button class="danger small" type="submit">Revoke link</button>
                      </form>
                    </div>
                  </details>
                </li>`,
            )}
          </ul>`
        : data.invites?.total
          ? ''
          : html`<p>No live invite links.</p>`
    }
    ${
      data.invites
        ? listFooter(data.invites, {
            path: `${base}/members`,
            query: { page: data.members.page > 1 ? data.members.page : undefined },
            param: 'invites_page',
          })
        : ''
    }
    <form method="post" action="${base}/members/invites" class="invite-form">
      ${csrf} ${roleSelect('f-invite-role', 'role', 'member')}
      <div class="field">
        <label for="f-invite-expiry">Expires after</label>
        <select id="f-invite-expiry" name="expires_in_days">
          ${INVITE_EXPIRIES.map((e) => html`<option value="${String(e.days)}" ${e.days === 7 ? html`selected` : ''}>${e.label}</option>`)}
        </select>
      </div>
      <button type="submit">Create invite link</button>
    </form>
  </section>`;
}

export function membersPage(ctx: PageContext, data: MembersData): SafeHtml {
  const { selfId, canManage, values = {}, errors = {} } = data;
  const members = data.members.items;
  const base = workspaceBase(data.workspace);
  const csrf = csrfField(ctx);
  return layout(ctx, {
    title: 'Members',
    section: 'members',
    scripts: [COPY_SCRIPT],
    body: html`<h1>Members</h1>
      ${scrollBox(
        'Members',
        html`
          <table class="members">
            <thead>
              <tr>
                <th>Name</th>
                <th>Email</th>
                <th>Role</th>
                <th class="joined">Joined</th>
                <th><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${members.map(
                (m) =>
                  html`<tr>
                    <td class="name">
                      ${m.name}${m.id === selfId ? html` <span class="badge">you</span>` : ''}
                    </td>
                    <td class="email">${breakableEmail(m.email)}</td>
                    <td class="role">${roleCell(csrf, base, data, m)}</td>
                    <td class="joined">
                      <span class="cell-label">Joined</span> ${timeAgo(m.joined_at)}
                    </td>
                    <td class="actions">
                      ${
                        !removalRefusal({ id: selfId, role: data.selfRole }, m)
                          ? confirmLink(
                              `${base}/members/${m.id}/remove`,
                              m.id === selfId ? 'Leave' : 'Remove',
                              { cls: 'danger small', hiddenLabel: m.id === selfId ? '' : m.name },
                            )
                          : ''
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        `,
      )}
      ${listFooter(data.members, {
        path: `${base}/members`,
        query: {
          invites_page: data.invites && data.invites.page > 1 ? data.invites.page : undefined,
        },
      })}
      ${canManage ? addMemberForm(csrf, base, values, errors) : ''}
      ${canManage ? invitesSection(csrf, base, data) : ''}`,
  });
}

/**
 * What an invite link shows: join (signed in), sign up / sign in first (signed out), or, for
 * someone who already has a seat there, the way into the workspace instead of a second "Join".
 * The workspace's name is one line with an ellipsis wherever it is chrome (title, button).
 */
export function invitePage(
  ctx: PageContext,
  data: {
    workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
    role: Role;
    path: string;
    signedIn: boolean;
    /** The viewer's role there when they already have a seat. */
    memberAs?: Role | undefined;
  },
): SafeHtml {
  const { workspace } = data;
  const next = encodeURIComponent(data.path);
  if (data.memberAs) {
    return layout(ctx, {
      title: workspace.name,
      body: html`<div class="card invite-card">
        <h1>You are already a member</h1>
        <p>
          This invite adds nothing: you already have a seat as ${data.memberAs} in
          <strong class="one-line" title="${workspace.name}">${workspace.name}</strong>
        </p>
        <div><a class="button" href="${workspaceBase(workspace)}">Open the workspace</a></div>
      </div>`,
    });
  }
  return layout(ctx, {
    title: `Join ${workspace.name}`,
    returnTo: data.path,
    body: html`<div class="card invite-card">
      <h1 class="one-line" title="Join ${workspace.name}">Join ${workspace.name}</h1>
      <p>
        You have been invited as ${data.role} to join
        <strong class="one-line" title="${workspace.name}">${workspace.name}</strong>
      </p>
      ${
        data.signedIn
          ? html`<form method="post" action="${data.path}">
              ${csrfField(ctx)}<button
                type="submit"
                class="one-line"
                title="Join ${workspace.name}"
              >
                Join ${workspace.name}
              </button>
            </form>`
          : html`<p>
                <a class="button" href="/signup?next=${next}">Create an account</a>
                <a class="button secondary" href="/login?next=${next}">Sign in</a>
              </p>
              <p class="muted">Either way, you come back here to join.</p>`
      }
    </div>`,
  });
}

/** "Remove Ada from Acme?" (or "Leave Acme?" for oneself): asked before the seat ends. */
export function removeMemberConfirmPage(
  ctx: PageContext,
  data: {
    workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
    member: { id: string; name: string };
    self: boolean;
  },
): SafeHtml {
  const { workspace, member, self } = data;
  const base = workspaceBase(workspace);
  return confirmPage(ctx, {
    question: self ? `Leave ${workspace.name}?` : `Remove ${member.name} from ${workspace.name}?`,
    section: 'members',
    consequences: self
      ? 'You lose access to its rooms, feedback and settings at once, and the incoming webhook keys you created stop working. An admin can add you back.'
      : `${member.name} loses access to its rooms, feedback and settings at once, and the incoming webhook keys they created stop working. You can add them back later.`,
    action: `${base}/members/${member.id}/remove`,
    confirmLabel: self ? `Leave ${workspace.name}` : `Remove ${member.name}`,
    cancelHref: `${base}/members`,
  });
}
