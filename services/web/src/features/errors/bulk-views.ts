import type { ErrorBulkAction, ErrorBulkActionKind, Workspace } from '@ferry/db';
import type { Assignee } from '@ferry/workspace';
import { number, plural } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, layout, workspaceBase, type PageContext } from '../../shared/layout.js';

/**
 * Bulk actions on the Errors list (issue 43): the bar above the table (its form holds the row
 * checkboxes through their `form` attribute), and the page that follows a large action to its end.
 */

/** The script that selects a page's rows at once, counts the selection, and follows progress. */
export const ERRORS_BULK_SCRIPT = '/assets/errors-bulk.js';
/** The id of the bar's form: the rows' checkboxes name it. */
export const BULK_FORM_ID = 'errors-bulk';

const DOING: Record<ErrorBulkActionKind, string> = {
  resolve: 'Resolving',
  ignore: 'Ignoring',
  unresolve: 'Reopening',
  assign: 'Assigning',
  merge: 'Merging',
};

const DONE: Record<ErrorBulkActionKind, string> = {
  resolve: 'Resolved',
  ignore: 'Ignored',
  unresolve: 'Reopened',
  assign: 'Assigned',
  merge: 'Merged',
};

/** "Resolved 12,000 groups." with what was skipped, for the flash and the finished page. */
export function bulkDoneText(action: ErrorBulkAction): string {
  const gone = action.total - action.changed;
  const what =
    action.action === 'merge'
      ? `${DONE.merge} ${plural(action.changed, 'group')} into one`
      : action.action === 'assign' && action.assignee_member_id === null
        ? `Unassigned ${plural(action.changed, 'group')}`
        : `${DONE[action.action]} ${plural(action.changed, 'group')}`;
  const skipped =
    gone > 0 ? ` ${plural(gone, 'group was', 'groups were')} merged away meanwhile.` : '';
  return `${what}.${skipped}`;
}

/** What the progress script reads; the page renders the same words on its first paint. */
export function bulkProgressJson(action: ErrorBulkAction) {
  return {
    status: action.status,
    total: action.total,
    processed: action.processed,
    text: progressText(action),
  };
}

function progressText(action: ErrorBulkAction): string {
  switch (action.status) {
    case 'queued':
      return `Waiting to start: ${plural(action.total, 'group')}.`;
    case 'running':
      return `${number(action.processed)} of ${plural(action.total, 'group')} done.`;
    case 'done':
      return bulkDoneText(action);
    case 'failed':
      return `Stopped after ${number(action.processed)} of ${plural(action.total, 'group')}: ${action.error ?? 'it failed'}`;
  }
}

export interface BulkBarData {
  q: string;
  page: number;
  /** Groups the search matches: what "all matching" would act on. */
  matching: number;
  /** Groups on this page: the header checkbox selects them. */
  shown: number;
  assignees: readonly Assignee[];
}

/**
 * The bar: what is selected, "all N matching this search", and the actions. Without the script
 * it still works: check rows (or the "all matching" box) and press an action.
 */
export function bulkBar(ctx: PageContext, path: string, data: BulkBarData): SafeHtml {
  return html`<form
    id="${BULK_FORM_ID}"
    class="bulk-bar"
    method="post"
    action="${path}/bulk"
    data-testid="bulk-bar"
    data-bulk
  >
    ${csrfField(ctx)}
    <input type="hidden" name="q" value="${data.q}" />
    <input type="hidden" name="page" value="${String(data.page)}" />
    <label class="bulk-select-page">
      <input type="checkbox" data-bulk-page aria-label="Select every group on this page" />
      <span data-bulk-count data-testid="bulk-count">Select groups</span>
    </label>
    <label class="bulk-all" ${data.matching > data.shown ? '' : html`hidden`}>
      <input type="checkbox" name="all" value="1" data-bulk-all data-testid="bulk-all" />
      All <strong>${number(data.matching)}</strong> matching this search
    </label>
    <span class="bulk-actions">
      <button type="submit" name="action" value="resolve" class="secondary">Resolve</button>
      <button type="submit" name="action" value="ignore" class="secondary">Ignore</button>
      <button type="submit" name="action" value="unresolve" class="secondary">Reopen</button>
      <span class="bulk-assign">
        <label for="bulk-assignee" class="bulk-assign-label">Assign to</label>
        <select id="bulk-assignee" name="assignee_id">
          <option value="">Nobody (unassign)</option>
          ${data.assignees.map((m) => html`<option value="${m.id}">${m.name}</option>`)}
        </select>
        <button type="submit" name="action" value="assign" class="secondary">Assign</button>
      </span>
    </span>
  </form>`;
}

/** A row's checkbox, in the bar's form; labelled by the group it selects. */
export function bulkCheckbox(groupId: string, label: string): SafeHtml {
  return html`<td class="select-cell">
    <input
      type="checkbox"
      name="ids"
      value="${groupId}"
      form="${BULK_FORM_ID}"
      aria-label="Select ${label}"
      data-bulk-row
    />
  </td>`;
}

export interface BulkActionPageData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  action: ErrorBulkAction;
  /** The list the action was started from. */
  back: string;
}

/** A large action, followed to its end: a bar and a line the script keeps current. */
export function bulkActionPage(ctx: PageContext, data: BulkActionPageData): SafeHtml {
  const { action } = data;
  const base = workspaceBase(data.workspace);
  const finished = action.status === 'done' || action.status === 'failed';
  const title = `${DOING[action.action]} ${plural(action.total, 'error group')}`;
  return layout(ctx, {
    title,
    section: 'errors',
    scripts: [ERRORS_BULK_SCRIPT],
    body: html`<div class="errors-view bulk-view">
      <div class="page-head"><h1>${title}</h1></div>
      ${action.query !== null ? html`<p class="muted">Every group matching <code>${action.query}</code> when it was asked for.</p>` : ''}
      <div
        class="card bulk-progress"
        data-bulk-progress="${base}/errors/bulk/${action.id}/progress"
        data-finished="${finished ? 'yes' : 'no'}"
      >
        <progress
          max="${String(Math.max(action.total, 1))}"
          value="${String(action.status === 'done' ? action.total : action.processed)}"
          data-testid="bulk-progress-bar"
        ></progress>
        <p
          role="status"
          data-bulk-text
          data-testid="bulk-progress-text"
          class="${action.status === 'failed' ? 'error' : ''}"
        >
          ${progressText(action)}
        </p>
        <p class="muted">
          It runs on the server: you can leave this page. Groups that get new occurrences meanwhile
          are included.
        </p>
      </div>
      <p><a href="${data.back}" data-testid="bulk-back">Back to the errors</a></p>
    </div>`,
  });
}
