import {
  detailFrameLine,
  type Breadcrumb,
  type DetailException,
  type DetailFrame,
  type OccurrenceDetail,
} from '@ferry/workspace';
import { code, muted } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';

/**
 * An occurrence's structured detail as a developer reads it (issue 41): the exception chain with
 * each frame's code (an "In app / Full" switch hides library frames, CSS only), breadcrumbs as a
 * timeline, and tags, user, request and contexts as tables. Every value is escaped by `html`.
 */

/** The frame as SPEC.md's backtrace line reads (`file:line:column:in function`). */
function frameTitle(frame: DetailFrame): SafeHtml {
  return html`<span class="frame-where">${detailFrameLine(frame)}</span>${
      frame.in_app ? '' : html` <span class="badge frame-lib">library</span>`
    }`;
}

/** The frame's code, numbered, its own line marked; nothing when the SDK read none. */
function frameCode(frame: DetailFrame): SafeHtml {
  if (frame.context_line === undefined || frame.line === undefined) return html``;
  const pre = frame.pre_context ?? [];
  const first = frame.line - pre.length;
  const lines = [...pre, frame.context_line, ...(frame.post_context ?? [])];
  return html`<ol class="frame-code" start="${first}">
    ${lines.map(
      (line, at) =>
        html`<li${first + at === frame.line ? html` class="frame-line"` : ''}><code>${line || ' '}</code></li>`,
    )}
  </ol>`;
}

function frameItem(frame: DetailFrame, open: boolean): SafeHtml {
  const minified = frame.minified
    ? html`<p class="muted small-text frame-minified">
        Mapped from ${frame.minified.file}:${frame.minified.line}:${frame.minified.column}
      </p>`
    : '';
  return html`<li class="stack-frame ${frame.in_app ? 'in-app' : 'lib'}">
    <details ${open ? html`open` : ''}>
      <summary>${frameTitle(frame)}</summary>
      ${frameCode(frame)} ${minified}
    </details>
  </li>`;
}

/** Innermost first; the innermost in-app frame opens itself (else the innermost). */
function frameList(frames: readonly DetailFrame[]): SafeHtml {
  if (frames.length === 0) return html`<p class="muted">No frames reported.</p>`;
  const open = Math.max(
    0,
    frames.findIndex((frame) => frame.in_app),
  );
  return html`<ol class="frames">
    ${frames.map((frame, at) => frameItem(frame, at === open))}
  </ol>`;
}

function exceptionBlock(exception: DetailException, cause: boolean): SafeHtml {
  return html`<div class="exception">
    <p class="exception-head">
      ${cause ? html`<span class="muted small-text">Caused by</span> ` : ''}<strong>${exception.type}</strong>${exception.value ? html`: <span class="plain-text">${exception.value}</span>` : ''}
    </p>
    ${frameList(exception.frames)}
  </div>`;
}

/**
 * The switch between the app's frames and all of them, without script: two radios before the
 * stack; CSS hides `.stack-frame.lib` while "In app" is checked. Shown only when both kinds are there.
 */
function stackSection(id: string, detail: OccurrenceDetail): SafeHtml {
  const stacks = [...(detail.exceptions ?? []).map((e) => e.frames), detail.frames ?? []];
  const all = stacks.flat();
  if (all.length === 0 && !detail.exceptions?.length) return html``;
  const both = all.some((f) => f.in_app) && all.some((f) => !f.in_app);
  // Sentry lists the raised exception last; a reader wants it first, its causes after.
  const chain = [...(detail.exceptions ?? [])].reverse();
  return html`<section class="stack" aria-label="Stack trace">
    <div class="stack-head">
      <h3>Stack trace</h3>
      ${
        both
          ? html`<span class="frames-switch">
              <input
                type="radio"
                name="frames-${id}"
                id="frames-app-${id}"
                class="frames-app"
                checked
              />
              <label for="frames-app-${id}">In app</label>
              <input type="radio" name="frames-${id}" id="frames-all-${id}" class="frames-all" />
              <label for="frames-all-${id}">Full</label>
            </span>`
          : ''
      }
    </div>
    <div class="stack-body">
      ${
        chain.length
          ? chain.map((exception, at) => exceptionBlock(exception, at > 0))
          : frameList(detail.frames ?? [])
      }
    </div>
  </section>`;
}

function crumbText(crumb: Breadcrumb): SafeHtml {
  const data =
    crumb.data === undefined
      ? ''
      : html`<code class="crumb-data"
          >${typeof crumb.data === 'string' ? crumb.data : JSON.stringify(crumb.data)}</code
        >`;
  return html`${crumb.message ? html`<span class="plain-text">${crumb.message}</span>` : ''} ${data}`;
}

function breadcrumbsSection(crumbs: readonly Breadcrumb[] | undefined): SafeHtml {
  if (!crumbs?.length) return html``;
  return html`<section aria-label="Breadcrumbs">
    <h3>Breadcrumbs <span class="muted small-text">(${crumbs.length}, oldest first)</span></h3>
    <div class="table-scroll">
      <table class="crumbs-table">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Category</th>
            <th scope="col">Level</th>
            <th scope="col">Message and data</th>
          </tr>
        </thead>
        <tbody>
          ${crumbs.map(
            (crumb) =>
              html`<tr class="crumb level-${crumb.level ?? 'info'}">
                <td class="nowrap">
                  ${crumb.timestamp ? crumb.timestamp.slice(11, 23) : muted('—')}
                </td>
                <td>${crumb.category ?? crumb.type ?? ''}</td>
                <td>${crumb.level ?? ''}</td>
                <td class="break">${crumbText(crumb)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}

function table(title: string, rows: readonly (readonly [string, string])[]): SafeHtml {
  if (rows.length === 0) return html``;
  return html`<section aria-label="${title}">
    <h3>${title}</h3>
    <table class="kv-table">
      <tbody>
        ${rows.map(
          ([key, value]) =>
            html`<tr>
              <th scope="row">${key}</th>
              <td class="break">${value}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function requestRows(request: NonNullable<OccurrenceDetail['request']>): [string, string][] {
  return [
    ...(request.method || request.url
      ? [['Request', [request.method, request.url].filter(Boolean).join(' ')] as [string, string]]
      : []),
    ...(request.query_string ? [['Query', request.query_string] as [string, string]] : []),
    ...(request.headers ?? []),
  ];
}

function aboutRows(detail: OccurrenceDetail): [string, string][] {
  const rows: [string, string | undefined][] = [
    ['Level', detail.level],
    ['Logger', detail.logger],
    ['Server', detail.server_name],
    ['Release', detail.release],
    ['Dist', detail.dist],
    ['SDK', detail.sdk && [detail.sdk.name, detail.sdk.version].filter(Boolean).join(' ')],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== undefined);
}

const CONTEXT_TITLES: Record<string, string> = {
  browser: 'Browser',
  os: 'OS',
  runtime: 'Runtime',
  device: 'Device',
  app: 'App',
};

export function detailSection(id: string, detail: OccurrenceDetail): SafeHtml {
  const contexts = Object.entries(detail.contexts ?? {});
  return html`<div class="occurrence-detail">
    ${stackSection(id, detail)} ${breadcrumbsSection(detail.breadcrumbs)}
    <div class="detail-tables">
      ${table('Tags', Object.entries(detail.tags ?? {}))}
      ${table('User', Object.entries(detail.user ?? {}))}
      ${detail.request ? table('Request', requestRows(detail.request)) : ''}
      ${contexts.map(([name, record]) => table(CONTEXT_TITLES[name] ?? name, Object.entries(record)))}
      ${table('Event', aboutRows(detail))}
    </div>
    ${
      detail.truncated?.length
        ? html`<p class="muted small-text">Cut to fit: ${detail.truncated.join('; ')}.</p>`
        : ''
    }
    ${detail.debug_images?.length ? html`<p class="muted small-text">Debug IDs: ${detail.debug_images.map((image) => code(image.debug_id))}</p>` : ''}
  </div>`;
}
