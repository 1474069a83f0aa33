import type { Room, Workspace } from '@ferry/db';
import { roomLabel, type RoomPerson } from '@ferry/workspace';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, layout, type PageContext } from '../../shared/layout.js';
import { roomPath } from './views.js';

/** A room's people, and (for members in the room) the form that adds someone from the workspace. */
export interface RoomPeopleData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  room: Pick<Room, 'id' | 'kind' | 'name'>;
  people: RoomPerson[];
  /** Whom the form offers; undefined when the viewer may not add people. */
  addable: RoomPerson[] | undefined;
  error?: string | undefined;
}

export function roomPeoplePage(ctx: PageContext, data: RoomPeopleData): SafeHtml {
  const label = roomLabel(data.room);
  const here = roomPath(data.workspace, data.room.id);
  return layout(ctx, {
    title: `People in ${label}`,
    section: 'rooms',
    body: html`<p><a href="${here}">← Back to ${label}</a></p>
      <h1>People in ${label}</h1>
      <ul class="people-list">
        ${data.people.map(
          (person) =>
            html`<li>
              <strong>${person.name}</strong> <span class="muted">${person.email}</span>
              <span class="badge">${person.role}</span>
            </li>`,
        )}
      </ul>
      ${
        data.addable === undefined
          ? ''
          : html`<section class="card spaced">
              <h2>Add someone</h2>
              ${
                data.addable.length
                  ? html`<form method="post" action="${here}/people" novalidate>
                      ${csrfField(ctx)}
                      <div class="field ${data.error ? 'has-error' : ''}">
                        <label for="f-member">Person</label>
                        <select
                          id="f-member"
                          name="member_id"
                          ${data.error ? html`aria-invalid="true" aria-describedby="f-member-error"` : ''}
                        >
                          ${data.addable.map(
                            (person) =>
                              html`<option value="${person.memberId}">
                                ${person.name} (${person.role}, ${person.email})
                              </option>`,
                          )}
                        </select>
                        ${data.error ? html`<p class="error" id="f-member-error">${data.error}</p>` : ''}
                      </div>
                      <button type="submit">Add to ${label}</button>
                    </form>`
                  : html`<p>Everyone in the workspace is already here.</p>
                      ${data.error ? html`<p class="error" role="alert">${data.error}</p>` : ''}`
              }
            </section>`
      }`,
  });
}
