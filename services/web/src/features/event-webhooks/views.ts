import type { Workspace } from '@ferry/db';
import {
  EVENT_TYPES,
  TEST_EVENT,
  WEBHOOK_TEST_TYPE,
  webhookTestJson,
  type ApiRoomJson,
  type CatalogJsonEntry,
  type DeliveryLogItem,
  type EndpointJson,
} from '@ferry/workspace';
import { html, type SafeHtml } from '../../shared/html.js';
import {
  csrfField,
  field,
  layout,
  scrollBox,
  workspaceBase,
  type PageContext,
} from '../../shared/layout.js';
import { timeAgo } from '../../shared/format.js';
import { confirmLink, confirmPage } from '../../shared/confirm.js';

/** Settings → Event webhooks (issue 44): the endpoints, one endpoint's page, and the catalog. */

export const eventWebhooksPath = (workspace: Pick<Workspace, 'id' | 'slug'>): string =>
  `${workspaceBase(workspace)}/settings/event-webhooks`;
export const endpointPath = (workspace: Pick<Workspace, 'id' | 'slug'>, id: string): string =>
  `${eventWebhooksPath(workspace)}/endpoints/${id}`;

/** The endpoint form, raw, kept when a save is refused. */
export interface EndpointFormValues {
  url: string;
  description: string;
  event_types: string[];
  environments: string;
  room_ids: string[];
  max_per_second: string;
}

export function formValuesOf(endpoint: EndpointJson | undefined): EndpointFormValues {
  return {
    url: endpoint?.url ?? '',
    description: endpoint?.description ?? '',
    event_types: endpoint?.event_types ?? [],
    environments: (endpoint?.environments ?? []).join(', '),
    room_ids: endpoint?.room_ids ?? [],
    max_per_second: endpoint?.max_per_second ? String(endpoint.max_per_second) : '',
  };
}

interface FormData {
  rooms: readonly ApiRoomJson[];
  values: EndpointFormValues;
  errors: Record<string, string>;
}

function checks(
  legend: string,
  name: string,
  options: readonly { value: string; label: string }[],
  chosen: readonly string[],
  error: string | undefined,
  hint: string,
): SafeHtml {
  return html`<fieldset class="field ${error ? 'has-error' : ''}">
    <legend>${legend}</legend>
    <div class="source-checks">
      ${options.length ? '' : html`<p class="muted">None yet.</p>`}
      ${options.map(
        (option) =>
          html`<label>
            <input
              type="checkbox"
              name="${name}"
              value="${option.value}"
              ${chosen.includes(option.value) ? html`checked` : ''}
            />
            ${option.label}
          </label>`,
      )}
    </div>
    ${error ? html`<p class="error">${error}</p>` : html`<p class="hint">${hint}</p>`}
  </fieldset>`;
}

function endpointForm(ctx: PageContext, data: FormData, action: string, submit: string): SafeHtml {
  const { values, errors } = data;
  const rooms = data.rooms.filter((room) => room.kind !== 'conversation');
  return html`<form method="post" action="${action}" novalidate data-testid="endpoint-form">
    ${csrfField(ctx)}
    ${field({
      label: 'URL',
      name: 'url',
      value: values.url,
      error: errors.url,
      maxlength: 2000,
      hint: 'Where the events are POSTed, signed (Standard Webhooks).',
    })}
    ${field({
      label: 'Description',
      name: 'description',
      value: values.description,
      error: errors.description,
      maxlength: 200,
    })}
    ${checks(
      'Event types',
      'event_types',
      EVENT_TYPES.map((type) => ({ value: type, label: type })),
      values.event_types,
      errors.event_types,
      'See the catalog for each payload.',
    )}
    ${field({
      label: 'Environments (error events)',
      name: 'environments',
      value: values.environments,
      error: errors.environments,
      hint: 'Comma-separated; empty: every environment.',
    })}
    ${checks(
      'Rooms (message.created)',
      'room_ids',
      rooms.map((room) => ({ value: room.id, label: room.name })),
      values.room_ids,
      errors.room_ids,
      'Members’ messages in these rooms are sent.',
    )}
    ${field({
      label: 'Rate limit (deliveries a second)',
      name: 'max_per_second',
      value: values.max_per_second,
      error: errors.max_per_second,
      hint: 'Empty: no limit.',
    })}
    <button type="submit">${submit}</button>
  </form>`;
}

function nav(workspace: Pick<Workspace, 'id' | 'slug'>): SafeHtml {
  return html`<p>
    <a href="${eventWebhooksPath(workspace)}">Endpoints</a> ·
    <a href="${eventWebhooksPath(workspace)}/catalog">Catalog</a>
  </p>`;
}

export function endpointsPage(
  ctx: PageContext,
  data: FormData & { workspace: Workspace; endpoints: EndpointJson[] },
): SafeHtml {
  return layout(ctx, {
    title: 'Event webhooks',
    section: 'event-webhooks',
    body: html`<div class="event-webhooks-view">
      <div class="page-head"><h1>Event webhooks</h1></div>
      ${nav(data.workspace)}
      <p class="muted">
        Tell another system when an error appears, comes back or is resolved, a ticket is filed or
        triaged, a dispatch opens a pull request, an agent connects, or a message is posted.
      </p>
      <section aria-labelledby="endpoints">
        <h2 id="endpoints">Endpoints</h2>
        ${
          data.endpoints.length
            ? html`<ul class="endpoint-list">
                ${data.endpoints.map(
                  (endpoint) =>
                    html`<li class="card" data-testid="endpoint">
                      <div class="card-head">
                        <h3>
                          <a href="${endpointPath(data.workspace, endpoint.id)}">${endpoint.url}</a>
                        </h3>
                        <span class="badge">${endpoint.state}</span>
                      </div>
                      <p>${endpoint.description}</p>
                      <p class="muted">
                        ${endpoint.event_types.join(', ')} · ${endpoint.consecutive_failures}
                        consecutive failures
                      </p>
                    </li>`,
                )}
              </ul>`
            : html`<p class="muted">No endpoints yet.</p>`
        }
      </section>
      <section aria-labelledby="add-endpoint">
        <h2 id="add-endpoint">Add an endpoint</h2>
        ${endpointForm(ctx, data, eventWebhooksPath(data.workspace), 'Add endpoint')}
      </section>
    </div>`,
  });
}

const postButton = (
  ctx: PageContext,
  action: string,
  label: string,
  kind = 'secondary',
): SafeHtml =>
  html`<form method="post" action="${action}">
    ${csrfField(ctx)}
    <button type="submit" class="${kind}">${label}</button>
  </form>`;

function deliveryRows(
  ctx: PageContext,
  base: string,
  deliveries: readonly DeliveryLogItem[],
): SafeHtml {
  if (!deliveries.length) return html`<p class="muted">Nothing delivered yet.</p>`;
  return scrollBox(
    'Deliveries',
    html`<table class="delivery-log">
      <thead>
        <tr>
          <th>Event</th>
          <th>Status</th>
          <th>Tries</th>
          <th>Last answer</th>
          <th>Created</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${deliveries.map(
          (d) =>
            html`<tr data-testid="delivery">
              <td><code>${d.event === TEST_EVENT ? WEBHOOK_TEST_TYPE : d.event}</code></td>
              <td>${d.status}</td>
              <td>${d.attempts}</td>
              <td>${d.last_status_code ?? ''}</td>
              <td>${timeAgo(d.created_at)}</td>
              <td>${postButton(ctx, `${base}/deliveries/${d.id}/resend`, 'Send again')}</td>
            </tr>`,
        )}
      </tbody>
    </table>`,
  );
}

export function endpointPage(
  ctx: PageContext,
  data: FormData & {
    workspace: Workspace;
    endpoint: EndpointJson;
    deliveries: DeliveryLogItem[];
    secret?: string | undefined;
  },
): SafeHtml {
  const { endpoint, workspace } = data;
  const base = endpointPath(workspace, endpoint.id);
  return layout(ctx, {
    title: `Event webhook ${endpoint.url}`,
    section: 'event-webhooks',
    body: html`<div class="event-webhooks-view">
      <div class="page-head"><h1>Endpoint</h1></div>
      ${nav(workspace)}
      <p>
        <code>${endpoint.url}</code> · ${endpoint.state}
        ${endpoint.disabled_reason ? html` (${endpoint.disabled_reason})` : ''} ·
        ${endpoint.consecutive_failures} consecutive failures
      </p>
      <section aria-labelledby="secret">
        <h2 id="secret">Signing secret</h2>
        ${
          data.secret
            ? html`<p><code data-testid="signing-secret">${data.secret}</code></p>`
            : postButton(ctx, `${base}/reveal`, 'Reveal')
        }
        ${
          endpoint.previous_secret_expires_at
            ? html`<p class="muted">
                The previous secret signs too until ${endpoint.previous_secret_expires_at}.
              </p>`
            : ''
        }
        <form method="post" action="${base}/rotate">
          ${csrfField(ctx)}
          ${field({
            label: 'Overlap (hours the old secret keeps signing)',
            name: 'overlap_hours',
            value: '24',
            error: data.errors.overlap_hours,
          })}
          <button type="submit" class="secondary">Rotate secret</button>
        </form>
      </section>
      <section aria-labelledby="state">
        <h2 id="state">State</h2>
        <div class="button-row">
          ${
            endpoint.state === 'enabled'
              ? postButton(ctx, `${base}/disable`, 'Disable')
              : postButton(ctx, `${base}/enable`, 'Enable')
          }
          ${postButton(ctx, `${base}/test`, 'Send test event')}
          ${confirmLink(`${base}/delete`, 'Delete')}
        </div>
        <form method="post" action="${base}/recover">
          ${csrfField(ctx)}
          ${field({
            label: 'Recover: resend every failed delivery since (UTC)',
            name: 'since',
            type: 'datetime-local',
            error: data.errors.since,
          })}
          <button type="submit" class="secondary">Recover</button>
        </form>
      </section>
      <section aria-labelledby="settings">
        <h2 id="settings">Settings</h2>
        ${endpointForm(ctx, data, base, 'Save')}
      </section>
      <section aria-labelledby="log">
        <h2 id="log">Deliveries</h2>
        ${deliveryRows(ctx, base, data.deliveries)}
      </section>
    </div>`,
  });
}

export function catalogPage(
  ctx: PageContext,
  data: { workspace: Workspace; catalog: readonly CatalogJsonEntry[] },
): SafeHtml {
  return layout(ctx, {
    title: 'Event catalog',
    section: 'event-webhooks',
    body: html`<div class="event-webhooks-view">
      <div class="page-head"><h1>Event catalog</h1></div>
      ${nav(data.workspace)}
      <p class="muted">
        Every delivery is <code>{type, timestamp, data}</code>, signed with Standard Webhooks
        headers (<code>webhook-id</code>, <code>webhook-timestamp</code>,
        <code>webhook-signature</code>). One endpoint receives its events in the order they
        happened. The same list as JSON: <code>GET /api/v1/event-types</code>.
      </p>
      ${data.catalog.map((entry) => catalogEntry(entry, 'event-type'))}
      <h2>Not subscribed to</h2>
      ${catalogEntry(webhookTestJson(), 'test-event')}
    </div>`,
  });
}

function catalogEntry(
  entry: Pick<CatalogJsonEntry, 'title' | 'description' | 'schema'> & { type: string },
  testId: string,
): SafeHtml {
  return html`<section class="card" data-testid="${testId}" id="${entry.type}">
    <h2><code>${entry.type}</code> ${entry.title}</h2>
    <p>${entry.description}</p>
    <details>
      <summary>JSON Schema</summary>
      <pre><code>${JSON.stringify(entry.schema, null, 2)}</code></pre>
    </details>
  </section>`;
}

/** "Delete the endpoint …?": asked first, since its held and failed deliveries go with it. */
export function deleteEndpointConfirmPage(
  ctx: PageContext,
  data: { workspace: Workspace; endpoint: EndpointJson },
): SafeHtml {
  const here = endpointPath(data.workspace, data.endpoint.id);
  return confirmPage(ctx, {
    question: `Delete the endpoint ${data.endpoint.url}?`,
    section: 'event-webhooks',
    consequences: html`No more events are sent to it, and its delivery log and any deliveries still
    waiting or failed are deleted with it. To pause it instead, disable it: held events then go out,
    in order, when you enable it again.`,
    action: `${here}/delete`,
    confirmLabel: 'Delete endpoint',
    cancelHref: here,
  });
}
