import type { Workspace } from '@ferry/db';
import { ROLES, type listMembers } from '@ferry/workspace';
import { confirmLink, confirmPage } from './confirm.js';
import { timeAgo } from './format.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, field, layout, workspaceBase, type PageContext } from './layout.js';

/** The workspace's members: remove (or leave), and for admins the form that adds one. */

export interface MembersData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  members: Awaited<ReturnType<typeof listMembers>>;
  /** The viewer's own seat. */
  selfId: string;
  /** The viewer may add and remove others (members.manage). */
  canManage: boolean;
  /** The add form as posted, with its errors. */
  values?: { email?: string; role?: string };
  errors?: Record<string, string>;
}

function addMemberForm(
  csrf: SafeHtml,
  base: string,
  values: { email?: string; role?: string },
  errors: Record<string, string>,
): SafeHtml {
  return html`<section class="card spaced">
    <h2>Add a member</h2>
    <form method="post" action="${base}/members" novalidate>
      ${csrf}
      ${field({ label: 'Email', name: 'email', type: 'email', value: values.email, error: errors.email, required: true })}
      <div class="field ${errors.role ? 'has-error' : ''}">
        <label for="f-role">Role</label>
        <select id="f-role" name="role">
          ${ROLES.filter((r) => r !== 'owner').map((r) => html`<option value="${r}" ${r === (values.role ?? 'member') ? html`selected` : ''}>${r}</option>`)}
        </select>
        ${errors.role ? html`<p class="error">${errors.role}</p>` : ''}
      </div>
      <button type="submit">Add member</button>
    </form>
  </section>`;
}

export function membersPage(ctx: PageContext, data: MembersData): SafeHtml {
  const { members, selfId, canManage, values = {}, errors = {} } = data;
  const base = workspaceBase(data.workspace);
  const csrf = csrfField(ctx);
  return layout(ctx, {
    title: 'Members',
    section: 'members',
    body: html`<h1>Members</h1>
      <div class="table-scroll">
        <table class="members">
          <thead>
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Role</th>
              <th class="joined">Joined</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${members.map(
              (m) =>
                html`<tr>
                  <td>${m.name}${m.id === selfId ? html` <span class="badge">you</span>` : ''}</td>
                  <td class="email">${m.email}</td>
                  <td><span class="badge">${m.role}</span></td>
                  <td class="joined">${timeAgo(m.joined_at)}</td>
                  <td>
                    ${
                      canManage || m.id === selfId
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
      </div>
      ${canManage ? addMemberForm(csrf, base, values, errors) : ''}`,
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
