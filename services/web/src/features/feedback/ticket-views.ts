import type { Feedback, FeedbackEvidence, Message, Workspace } from '@ferry/db';
import type {
  Assignee,
  DispatchJson,
  MentionHandles,
  ScreenshotMeta,
  Ticket,
} from '@ferry/workspace';
import { code, link, mailto, optional, timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, layout, workspaceBase, type PageContext } from '../../shared/layout.js';
import { messageItems } from '../rooms/message-views.js';
import { dispatchCard, type DispatchPanel } from './dispatch-views.js';
import { evidenceCard } from './evidence-views.js';
import { linkedErrorsCard, type LinkedErrorsPanel } from './linked-errors-views.js';
import { STATUS_LABEL, statusBadge, ticketTitle } from './shared-views.js';

/**
 * A feedback ticket's page: the note, screenshot, triage form, dispatch panel and conversation,
 * with the reporter, page and picked element beside them.
 */

function ticketSide(f: Feedback): SafeHtml {
  const viewport =
    f.viewport_width !== null || f.viewport_height !== null
      ? `${f.viewport_width ?? '?'} × ${f.viewport_height ?? '?'}`
      : null;
  return html`<div class="ticket-side">
    <section class="card">
      <h2>Reporter</h2>
      <dl class="kv">
        <dt>Name</dt>
        <dd>${optional(f.reporter_label)}</dd>
        <dt>Role</dt>
        <dd>${optional(f.reporter_role)}</dd>
        <dt>Email</dt>
        <dd>${optional(f.reporter_email, mailto)}</dd>
        <dt>Visitor</dt>
        <dd>
          ${
            f.visitor_id
              ? html`<code title="Filed through the widget by this visitor">${f.visitor_id}</code>`
              : optional(null)
          }
        </dd>
      </dl>
    </section>
    <section class="card">
      <h2>Page</h2>
      <dl class="kv">
        <dt>URL</dt>
        <dd class="break">${link(f.page_url)}</dd>
        <dt>Path</dt>
        <dd>${optional(f.page_path, code)}</dd>
        <dt>Controller#action</dt>
        <dd>${optional(f.controller_action, code)}</dd>
        <dt>Viewport</dt>
        <dd>${optional(viewport)}</dd>
      </dl>
      <h3>Rendered partials (${f.partials.length})</h3>
      ${
        f.partials.length
          ? html`<ol class="partials">
              ${f.partials.map((p) => html`<li>${code(p)}</li>`)}
            </ol>`
          : html`<p class="muted">None reported.</p>`
      }
    </section>
    <section class="card">
      <h2>Picked element</h2>
      <dl class="kv">
        <dt>Selector</dt>
        <dd>${optional(f.element_selector, code)}</dd>
        <dt>Tag</dt>
        <dd>${optional(f.element_tag, code)}</dd>
        <dt>Text</dt>
        <dd>${optional(f.element_text)}</dd>
      </dl>
      ${
        f.element_outer_html
          ? html`<h3>Outer HTML</h3>
              <pre class="outer-html">${f.element_outer_html}</pre>`
          : ''
      }
    </section>
  </div>`;
}

/** The ticket page's triage form, for members who may triage (feedback/routes.ts). */
export interface TriagePanel {
  members: Assignee[];
  /** What the form shows: the ticket's values, or what was sent when it was refused. */
  values: { status: string; assignee_id: string };
  errors: Record<string, string>;
}

function triageCard(ctx: PageContext, base: string, f: Ticket, panel: TriagePanel): SafeHtml {
  const { values, errors } = panel;
  // A refused assignee (someone who just left) is not a choice any more: the select shows the
  // ticket's current one, so saving again cannot quietly unassign it.
  const assigneeId = panel.members.some((m) => m.id === values.assignee_id)
    ? values.assignee_id
    : (f.assignee_member_id ?? '');
  const fieldClass = (name: string) => `field ${errors[name] ? 'has-error' : ''}`;
  const invalid = (name: string) =>
    errors[name] ? html`aria-invalid="true" aria-describedby="triage-${name}-error"` : '';
  const error = (name: string) =>
    errors[name] ? html`<p class="error" id="triage-${name}-error">${errors[name]}</p>` : '';
  const other = Object.entries(errors).find(([k]) => k !== 'status' && k !== 'assignee_id');
  return html`<section class="card triage-card" id="triage" aria-labelledby="triage-heading">
    <h2 id="triage-heading">Triage</h2>
    ${other ? html`<div class="flash error" role="alert">${other[1]}</div>` : ''}
    <form method="post" action="${base}/feedback/${f.id}/triage" class="triage-form" novalidate>
      ${csrfField(ctx)}
      <div class="${fieldClass('status')}">
        <label for="triage-status">Status</label>
        <select id="triage-status" name="status" ${invalid('status')}>
          ${(['new', 'triaged', 'closed'] as const).map(
            (s) =>
              html`<option value="${s}" ${values.status === s ? html`selected` : ''}>
                ${STATUS_LABEL[s]}
              </option>`,
          )}
        </select>
        ${error('status')}
      </div>
      <div class="${fieldClass('assignee_id')}">
        <label for="triage-assignee_id">Assignee</label>
        <select id="triage-assignee_id" name="assignee_id" ${invalid('assignee_id')}>
          <option value="" ${assigneeId ? '' : html`selected`}>Nobody</option>
          ${panel.members.map(
            (m) =>
              html`<option value="${m.id}" ${assigneeId === m.id ? html`selected` : ''}>
                ${m.name}
              </option>`,
          )}
        </select>
        ${error('assignee_id')}
      </div>
      <button type="submit">Save</button>
    </form>
    <p class="hint">Each change is noted in the conversation below.</p>
  </section>`;
}

export interface TicketData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  feedback: Ticket;
  /** The conversation room's latest messages, oldest first; `more` when earlier ones exist. */
  conversation: { messages: Message[]; more: boolean };
  handles: MentionHandles;
  /** Webhook badges' links to their keys' pages, for a viewer who may open them (as in the room). */
  webhookKeyLinks?: ReadonlyMap<string, string> | undefined;
  dispatches: DispatchJson[];
  /** Undefined for a viewer who may not dispatch: the list still shows, without the form. */
  dispatch?: DispatchPanel | undefined;
  /** Undefined for a viewer who may not triage. */
  triage?: TriagePanel | undefined;
  /** The error group it was filed from ("Fix with agent"), when it was and the group remains. */
  errorGroup?: { id: string; error_class: string } | undefined;
  /** The widget screenshot's size, when the visitor attached one (the bytes are served apart). */
  screenshot?: Pick<ScreenshotMeta, 'width' | 'height' | 'byte_size'> | undefined;
  /** The page's console and network activity before the report, when the widget attached it. */
  evidence?: FeedbackEvidence | undefined;
  /** Issue 45: the error groups linked to it; undefined for a viewer who may not read errors. */
  linkedErrors?: LinkedErrorsPanel | undefined;
}

/** The visitor's screenshot: a preview that opens the full-size image (members only). */
function screenshotCard(
  base: string,
  f: Ticket,
  shot: NonNullable<TicketData['screenshot']>,
): SafeHtml {
  const src = `${base}/feedback/${f.id}/screenshot`;
  const where = f.page_path ?? f.page_url;
  const kb = Math.max(1, Math.round(shot.byte_size / 1024));
  return html`<section class="card screenshot-card" aria-labelledby="screenshot-heading">
    <h2 id="screenshot-heading">Screenshot</h2>
    <a class="screenshot-link" href="${src}" target="_blank" rel="noopener">
      <img
        src="${src}"
        width="${shot.width}"
        height="${shot.height}"
        loading="lazy"
        alt="${`Screenshot of ${where ? `the page ${where}` : 'the page'} as the reporter saw it, the picked element outlined`}"
      />
    </a>
    <p class="hint">
      ${shot.width} × ${shot.height} px, ${kb.toLocaleString('en-US')} KB · the reporter may have
      blacked out parts of it · <a href="${src}" target="_blank" rel="noopener">Open full size</a> ·
      never sent to GitHub
    </p>
  </section>`;
}

export function ticketPage(ctx: PageContext, data: TicketData): SafeHtml {
  const { feedback: f, conversation } = data;
  const base = workspaceBase(data.workspace);
  const roomHref = `${base}/rooms/${f.room_id}`;
  return layout(ctx, {
    title: ticketTitle(f),
    section: 'feedback',
    body: html`<p class="crumbs"><a href="${base}/feedback">← Feedback</a></p>
      <div class="page-head">
        <h1>${ticketTitle(f)} ${statusBadge(f.status)}</h1>
      </div>
      <p class="muted">
        Filed ${timeAgo(f.created_at)} ·
        ${f.assignee_member_id ? html`assigned to ${f.assignee_name ?? 'a former member'}` : 'unassigned'}
        · ${code(f.id)}
      </p>
      ${
        data.errorGroup
          ? html`<p class="from-error">
              Filed from the error
              <a href="${base}/errors/${data.errorGroup.id}">${data.errorGroup.error_class}</a>
            </p>`
          : ''
      }
      <div class="ticket">
        <div class="ticket-main">
          <section class="card">
            <h2>Note</h2>
            <div class="note plain-text">${f.note}</div>
          </section>
          ${data.screenshot ? screenshotCard(base, f, data.screenshot) : ''}
          ${data.evidence ? evidenceCard(data.evidence, f.page_url) : ''}
          ${data.linkedErrors ? linkedErrorsCard(ctx, base, f, data.linkedErrors) : ''}
          ${data.triage ? triageCard(ctx, base, f, data.triage) : ''}
          ${dispatchCard(ctx, base, f, data.dispatch, data.dispatches)}
          <section class="card">
            <h2>Conversation</h2>
            ${
              conversation.messages.length
                ? html`<ol class="messages readonly">
                    ${conversation.more ? html`<li class="muted">Earlier messages are in the room.</li>` : ''}
                    ${messageItems(conversation.messages, data.handles, { webhookKeyLinks: data.webhookKeyLinks })}
                  </ol>`
                : html`<p class="muted">No messages yet.</p>`
            }
            <p><a class="button" href="${roomHref}">Reply in the conversation room</a></p>
          </section>
        </div>
        ${ticketSide(f)}
      </div>`,
  });
}
