import { ERROR_SOURCES, type Workspace } from '@ferry/db';
import type { ApiRoomJson, DeliveryLogItem, ErrorAlertRuleJson } from '@ferry/workspace';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, field, layout, workspaceBase, type PageContext } from '../../shared/layout.js';
import { timeAgo } from '../../shared/format.js';
import { confirmLink } from '../../shared/confirm.js';

/** One rule's form, raw, kept when a save is refused so nothing typed is lost. */
export interface ErrorAlertFormValues {
  name: string;
  room_id: string;
  new_group: boolean;
  regression: boolean;
  frequency_on: boolean;
  frequency_count: string;
  frequency_minutes: string;
  url: string;
  environments: string;
  sources: string[];
  levels: string;
  releases: string;
  tags: string;
  notify_member_ids: string[];
  hand_to_agent: boolean;
}

const listText = (list: readonly string[] | null): string => (list ?? []).join(', ');

export function formValuesOf(rule: ErrorAlertRuleJson | undefined): ErrorAlertFormValues {
  return {
    name: rule?.name ?? '',
    room_id: rule?.room_id ?? '',
    new_group: rule?.new_group ?? true,
    regression: rule?.regression ?? false,
    frequency_on: rule ? rule.frequency !== null : false,
    frequency_count: String(rule?.frequency?.count ?? 50),
    frequency_minutes: String(rule?.frequency?.minutes ?? 5),
    url: rule?.url ?? '',
    environments: listText(rule?.environments ?? null),
    sources: rule?.sources ?? [],
    levels: listText(rule?.levels ?? null),
    releases: listText(rule?.releases ?? null),
    tags: listText(rule?.tags ?? null),
    notify_member_ids: rule?.notify_member_ids ?? [],
    hand_to_agent: rule?.hand_to_agent ?? false,
  };
}

export const errorAlertsPath = (workspace: Pick<Workspace, 'id' | 'slug'>): string =>
  `${workspaceBase(workspace)}/settings/error-alerts`;

export const errorAlertRulePath = (
  workspace: Pick<Workspace, 'id' | 'slug'>,
  ruleId: string,
): string => `${errorAlertsPath(workspace)}/rules/${ruleId}`;

/** A member the form offers to notify. */
export interface NotifiableSeat {
  id: string;
  name: string;
}

interface FormData {
  rooms: readonly ApiRoomJson[];
  members: readonly NotifiableSeat[];
  values: ErrorAlertFormValues;
  errors: Record<string, string>;
}

/** A list field's message: about the list, or about its first bad item (`tags.2`). */
function listError(errors: Record<string, string>, name: string): string | undefined {
  if (errors[name]) return errors[name];
  const item = Object.keys(errors).find((key) => key.startsWith(`${name}.`));
  return item ? errors[item] : undefined;
}

function check(name: string, checked: boolean, label: string, hint: string): SafeHtml {
  return html`<div class="field checkbox">
    <label>
      <input type="checkbox" name="${name}" value="on" ${checked ? html`checked` : ''} />
      ${label}
    </label>
    <p class="hint">${hint}</p>
  </div>`;
}

function roomSelect(data: FormData): SafeHtml {
  const error = data.errors.room_id;
  // Channels and agent rooms: a ticket's conversation is no place for the team's alerts.
  const rooms = data.rooms.filter(
    (room) => room.kind !== 'conversation' || room.id === data.values.room_id,
  );
  return html`<div class="field ${error ? 'has-error' : ''}">
    <label for="f-room_id">Room</label>
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
            30 an hour for this rule (then one line says how many were held).
          </p>`
    }
  </div>`;
}

function sourceChecks(data: FormData): SafeHtml {
  const error = listError(data.errors, 'sources');
  return html`<fieldset class="field ${error ? 'has-error' : ''}">
    <legend>Sources</legend>
    <div class="source-checks">
      ${ERROR_SOURCES.map(
        (source) =>
          html`<label>
            <input
              type="checkbox"
              name="sources"
              value="${source}"
              ${data.values.sources.includes(source) ? html`checked` : ''}
            />
            ${source}
          </label>`,
      )}
    </div>
    ${
      error
        ? html`<p class="error">${error}</p>`
        : html`<p class="hint">None ticked: every source.</p>`
    }
  </fieldset>`;
}

function memberChecks(data: FormData): SafeHtml {
  const error = listError(data.errors, 'notify_member_ids');
  const chosen = new Set(data.values.notify_member_ids);
  return html`<fieldset class="field ${error ? 'has-error' : ''}">
    <legend>Notify members</legend>
    <div class="source-checks">
      ${data.members.map(
        (member) =>
          html`<label>
            <input
              type="checkbox"
              name="notify_member_ids"
              value="${member.id}"
              ${chosen.has(member.id) ? html`checked` : ''}
            />
            ${member.name}
          </label>`,
      )}
    </div>
    ${
      error
        ? html`<p class="error">${error}</p>`
        : html`<p class="hint">Each alert is in their Mentions, linking the room's message.</p>`
    }
  </fieldset>`;
}

/** The rule's form: when, for which errors, and what to do. */
export function ruleForm(
  ctx: PageContext,
  data: FormData,
  action: string,
  submit: string,
): SafeHtml {
  const { values, errors } = data;
  return html`<form method="post" action="${action}" novalidate data-testid="error-alerts-form">
    ${csrfField(ctx)}
    ${field({
      label: 'Name',
      name: 'name',
      value: values.name,
      error: errors.name,
      maxlength: 80,
      hint: 'Empty: "Error alerts".',
    })}
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
        'A group reaches the number of occurrences below within the minutes below. Spike rules share one window.',
      )}
      <div class="inline-fields">
        ${field({
          label: 'Occurrences',
          name: 'frequency_count',
          type: 'number',
          value: values.frequency_count,
          error: errors['frequency.count'] ?? errors.frequency,
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
    <fieldset class="field">
      <legend>Only for</legend>
      ${field({
        label: 'Environments',
        name: 'environments',
        value: values.environments,
        error: listError(errors, 'environments'),
        maxlength: 1000,
        hint: 'Comma-separated, e.g. "production". Empty: every environment.',
      })}
      ${sourceChecks(data)}
      ${field({
        label: 'Levels',
        name: 'levels',
        value: values.levels,
        error: listError(errors, 'levels'),
        maxlength: 500,
        hint: 'E.g. "error, fatal". Reports sent to /ingest/errors are "error". Empty: every level.',
      })}
      ${field({
        label: 'Releases',
        name: 'releases',
        value: values.releases,
        error: listError(errors, 'releases'),
        maxlength: 2000,
        hint: 'E.g. "2.*" (* matches anything). Empty: every release, and none.',
      })}
      ${field({
        label: 'Tags',
        name: 'tags',
        value: values.tags,
        error: listError(errors, 'tags'),
        maxlength: 2000,
        hint: 'key=value, comma-separated, all must match, e.g. "browser=Chrome*, feature=checkout".',
      })}
    </fieldset>
    <fieldset class="field">
      <legend>Then</legend>
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
      ${memberChecks(data)}
      ${check(
        'hand_to_agent',
        values.hand_to_agent,
        'Hand it to the agent',
        'Files the ticket "Fix with agent" files, once per error group: a connected agent starts on it.',
      )}
    </fieldset>
    <button type="submit">${submit}</button>
  </form>`;
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

/** What a rule does, in three short lines. */
function ruleSummary(rule: ErrorAlertRuleJson, data: FormData): SafeHtml {
  const { rooms } = data;
  const when = [
    rule.new_group ? 'a new error' : null,
    rule.regression ? 'a regression' : null,
    rule.frequency
      ? `${rule.frequency.count.toLocaleString('en-US')} in ${rule.frequency.minutes} min`
      : null,
  ].filter((part) => part !== null);
  const only = [
    rule.environments ? `environment ${rule.environments.join(' or ')}` : null,
    rule.sources ? `source ${rule.sources.join(' or ')}` : null,
    rule.levels ? `level ${rule.levels.join(' or ')}` : null,
    rule.releases ? `release ${rule.releases.join(' or ')}` : null,
    ...(rule.tags ?? []).map((tag) => `tag ${tag}`),
  ].filter((part) => part !== null);
  const room = rooms.find((r) => r.id === rule.room_id);
  const then = [
    room ? (room.kind === 'channel' ? `post in #${room.name}` : `post in ${room.name}`) : null,
    rule.notify_member_ids
      ? `notify ${rule.notify_member_ids
          .map((id) => data.members.find((member) => member.id === id)?.name ?? 'a former member')
          .join(', ')}`
      : null,
    rule.url ? `POST to the URL${rule.url_state === 'disabled' ? ' (disabled)' : ''}` : null,
    rule.hand_to_agent ? 'hand to the agent' : null,
  ].filter((part) => part !== null);
  return html`<dl class="rule-summary">
    <dt>When</dt>
    <dd>${when.length ? when.join(', ') : 'never (no trigger)'}</dd>
    <dt>Only</dt>
    <dd class="break">${only.length ? only.join(' · ') : 'every error'}</dd>
    <dt>Then</dt>
    <dd>${then.length ? then.join(', ') : 'nothing (no action)'}</dd>
  </dl>`;
}

export interface ErrorAlertsPageData extends FormData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  rules: readonly ErrorAlertRuleJson[];
}

/** Settings > Error alerts: the workspace's rules, each with Edit and Delete, and a new one. */
export function errorAlertsPage(ctx: PageContext, data: ErrorAlertsPageData): SafeHtml {
  const path = errorAlertsPath(data.workspace);
  return layout(ctx, {
    title: 'Error alerts',
    section: 'error-alerts',
    body: html`<div class="error-alerts-view">
      <div class="page-head"><h1>Error alerts</h1></div>
      <p class="muted">
        Tell the team, or hand the work to the agent, when something new breaks, a resolved error
        comes back, or an error spikes. Each rule decides on its own; ignored error groups never
        alert.
      </p>
      <section aria-labelledby="alert-rules">
        <h2 id="alert-rules">Rules</h2>
        ${
          data.rules.length
            ? html`<ul class="alert-rules">
                ${data.rules.map(
                  (rule) =>
                    html`<li class="card alert-rule" data-testid="alert-rule">
                      <div class="card-head">
                        <h3>${rule.name}</h3>
                        <div class="button-row">
                          <a
                            class="button secondary"
                            href="${errorAlertRulePath(data.workspace, rule.id)}"
                            >Edit</a
                          >
                          <form
                            method="post"
                            action="${errorAlertRulePath(data.workspace, rule.id)}/delete"
                          >
                            ${csrfField(ctx)}
                            <button type="submit" class="danger">Delete</button>
                          </form>
                        </div>
                      </div>
                      ${ruleSummary(rule, data)}
                    </li>`,
                )}
              </ul>`
            : html`<p class="muted" data-testid="no-alert-rules">No rules yet: nothing alerts.</p>`
        }
      </section>
      <section class="card spaced" aria-labelledby="add-rule">
        <h2 id="add-rule">Add a rule</h2>
        ${ruleForm(ctx, data, path, 'Add rule')}
      </section>
    </div>`,
  });
}

export interface ErrorAlertRulePageData extends FormData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  rule: ErrorAlertRuleJson;
  deliveries: readonly DeliveryLogItem[];
  /** Shown once, in the answer to "Reveal signing secret" (a POST). */
  secret?: string | undefined;
}

/** One rule: its form, its URL's deliveries and signing secret, and Delete. */
export function errorAlertRulePage(ctx: PageContext, data: ErrorAlertRulePageData): SafeHtml {
  const path = errorAlertRulePath(data.workspace, data.rule.id);
  return layout(ctx, {
    title: `${data.rule.name} · Error alerts`,
    section: 'error-alerts',
    body: html`<div class="error-alerts-view">
      <p><a href="${errorAlertsPath(data.workspace)}">← Error alerts</a></p>
      <div class="page-head"><h1>${data.rule.name}</h1></div>
      <section class="card" aria-labelledby="edit-rule">
        <h2 id="edit-rule">Edit the rule</h2>
        ${ruleForm(ctx, data, path, 'Save rule')}
      </section>
      ${
        data.rule.url
          ? html`<section class="card spaced" aria-labelledby="alert-url">
              <h2 id="alert-url">URL deliveries</h2>
              <p>
                <code class="break">${data.rule.url}</code> ·
                <strong data-testid="alert-url-state">${data.rule.url_state ?? 'enabled'}</strong>
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
      <section class="card spaced" aria-labelledby="delete-rule">
        <h2 id="delete-rule">Delete the rule</h2>
        <p class="muted">Its URL's signing secret and delivery log go with it.</p>
        ${confirmLink(`${path}/delete`, 'Delete rule')}
      </section>
    </div>`,
  });
}
