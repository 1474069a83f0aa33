import type { Workspace } from '@ferry/db';
import type { ApiRoomJson, DeliveryLogItem, ErrorAlertRulesJson } from '@ferry/workspace';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, field, layout, workspaceBase, type PageContext } from '../../shared/layout.js';
import { timeAgo } from '../../shared/format.js';

/** The form's raw values, kept when a save is refused so nothing typed is lost. */
export interface ErrorAlertFormValues {
  room_id: string;
  new_group: boolean;
  regression: boolean;
  frequency_on: boolean;
  frequency_count: string;
  frequency_minutes: string;
  url: string;
  environments: string;
}

export function formValuesOf(rules: ErrorAlertRulesJson): ErrorAlertFormValues {
  return {
    room_id: rules.room_id ?? '',
    new_group: rules.new_group,
    regression: rules.regression,
    frequency_on: rules.frequency !== null,
    frequency_count: String(rules.frequency?.count ?? 50),
    frequency_minutes: String(rules.frequency?.minutes ?? 5),
    url: rules.url ?? '',
    environments: (rules.environments ?? []).join(', '),
  };
}

export interface ErrorAlertsPageData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  rules: ErrorAlertRulesJson;
  rooms: readonly ApiRoomJson[];
  values: ErrorAlertFormValues;
  errors: Record<string, string>;
  deliveries: readonly DeliveryLogItem[];
  /** Shown once, in the answer to "Reveal signing secret" (a POST). */
  secret?: string | undefined;
}

export const errorAlertsPath = (workspace: Pick<Workspace, 'id' | 'slug'>): string =>
  `${workspaceBase(workspace)}/settings/error-alerts`;

function check(name: string, checked: boolean, label: string, hint: string): SafeHtml {
  return html`<div class="field checkbox">
    <label>
      <input type="checkbox" name="${name}" value="on" ${checked ? html`checked` : ''} />
      ${label}
    </label>
    <p class="hint">${hint}</p>
  </div>`;
}

function roomSelect(data: ErrorAlertsPageData): SafeHtml {
  const error = data.errors.room_id;
  // Channels and agent rooms: a ticket's conversation is no place for the team's alerts.
  const rooms = data.rooms.filter(
    (room) => room.kind !== 'conversation' || room.id === data.values.room_id,
  );
  return html`<div class="field ${error ? 'has-error' : ''}">
    <label for="f-room_id">Alert room</label>
    <select
      id="f-room_id"
      name="room_id"
      ${error ? html`aria-invalid="true" aria-describedby="f-room_id-error"` : html`aria-describedby="f-room_id-hint"`}
    >
      <option value="">No room</option>
      ${rooms.map(
        (room) =>
          html`<option value="${room.id}" ${room.id === data.values.room_id ? html`selected` : ''}>
            ${room.kind === 'channel' ? `#${room.name}` : room.name}
          </option>`,
      )}
    </select>
    ${
      error
        ? html`<p class="error" id="f-room_id-error">${error}</p>`
        : html`<p class="hint" id="f-room_id-hint">
            Alerts are posted here by "Errors": at most one per error group and trigger an hour, and
            30 an hour in all (then one line says how many were held).
          </p>`
    }
  </div>`;
}

function deliveryList(deliveries: readonly DeliveryLogItem[]): SafeHtml {
  if (!deliveries.length) return html`<p class="muted">Nothing sent yet.</p>`;
  return html`<ul class="alert-deliveries">
    ${deliveries.map(
      (d) =>
        html`<li data-testid="alert-delivery">
          <code>${d.event}</code> ·
          ${d.status}${d.last_status_code ? ` (HTTP ${d.last_status_code})` : ''} ·
          ${timeAgo(d.created_at)}
        </li>`,
    )}
  </ul>`;
}

/** Settings > Error alerts: when to alert, where (a room, a URL), for which environments. */
export function errorAlertsPage(ctx: PageContext, data: ErrorAlertsPageData): SafeHtml {
  const path = errorAlertsPath(data.workspace);
  const { values, errors } = data;
  return layout(ctx, {
    title: 'Error alerts',
    section: 'error-alerts',
    body: html`<div class="error-alerts-view">
      <div class="page-head"><h1>Error alerts</h1></div>
      <p class="muted">
        Tell the team when something new breaks, a resolved error comes back, or an error spikes.
        Ignored error groups never alert.
      </p>
      <section class="card" aria-labelledby="alert-rules">
        <h2 id="alert-rules">Rules</h2>
        <form method="post" action="${path}" novalidate data-testid="error-alerts-form">
          ${csrfField(ctx)}
          <fieldset class="field">
            <legend>Alert when</legend>
            ${check('new_group', values.new_group, 'A new error appears', 'Its first occurrence.')}
            ${check(
              'regression',
              values.regression,
              'A resolved error comes back',
              'A group marked resolved gets a new occurrence.',
            )}
            ${check(
              'frequency_on',
              values.frequency_on,
              'An error spikes',
              'A group passes the number of occurrences below within the minutes below.',
            )}
            <div class="inline-fields">
              ${field({
                label: 'Occurrences',
                name: 'frequency_count',
                type: 'number',
                value: values.frequency_count,
                error: errors['frequency.count'],
              })}
              ${field({
                label: 'Within minutes',
                name: 'frequency_minutes',
                type: 'number',
                value: values.frequency_minutes,
                error: errors['frequency.minutes'],
              })}
            </div>
          </fieldset>
          ${roomSelect(data)}
          ${field({
            label: 'URL',
            name: 'url',
            type: 'url',
            value: values.url,
            error: errors.url,
            maxlength: 2000,
            hint: 'Optional: gets a signed POST (Standard Webhooks) per alert, e.g. a Slack or PagerDuty relay.',
          })}
          ${field({
            label: 'Environments',
            name: 'environments',
            value: values.environments,
            error: errors.environments ?? errors['environments.0'],
            maxlength: 1000,
            hint: 'Comma-separated, e.g. "production". Empty: every environment.',
          })}
          <button type="submit">Save alert rules</button>
        </form>
      </section>
      ${
        data.rules.url
          ? html`<section class="card" aria-labelledby="alert-url">
              <h2 id="alert-url">URL deliveries</h2>
              <p>
                <code class="break">${data.rules.url}</code> ·
                <strong data-testid="alert-url-state">${data.rules.url_state ?? 'enabled'}</strong>
              </p>
              <p class="muted">
                Events <code>error_group.created</code>, <code>error_group.regressed</code> and
                <code>error_group.spiking</code>, signed with the headers <code>webhook-id</code>,
                <code>webhook-timestamp</code> and <code>webhook-signature</code>; retried like a
                room's outgoing webhook.
              </p>
              ${
                data.secret
                  ? html`<p>
                      Signing secret:
                      <code class="break" data-testid="alert-secret">${data.secret}</code>
                    </p>`
                  : html`<form method="post" action="${path}/reveal">
                      ${csrfField(ctx)}
                      <button type="submit" class="secondary">Reveal signing secret</button>
                    </form>`
              }
              <h3>Latest deliveries</h3>
              ${deliveryList(data.deliveries)}
            </section>`
          : ''
      }
    </div>`,
  });
}
