import type { Workspace } from '@ferry/db';
import type { DeliverySeries, DeploymentHealth, IngestSeries, SlowHook } from './figures.js';
import type { DeploymentHistory } from './history.js';
import type { WorkspaceFailedJob } from './jobs.js';
import { number, plural, timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import {
  csrfField,
  extraNav,
  layout,
  scrollBox,
  workspaceBase,
  type PageContext,
} from '../../shared/layout.js';
import { chart, sparkline, type Chart, type Series } from '../../shared/sparkline.js';
import { outgoingHookPath } from '../webhooks/views.js';

/**
 * The Ops page: deployment-wide queue health and outbox lag (no tenant data), this workspace's
 * ingest, deliveries, slowest hooks and agents, and its failed jobs with a Retry button. Every
 * number and chart has a key; the page renders them and /ops/figures answers the same keys as
 * JSON, which public/ops.js swaps in every 5 s.
 */

extraNav.push({ key: 'ops', label: 'Ops', path: '/ops', capability: 'ops.read' });

export const opsPath = (workspace: Pick<Workspace, 'id' | 'slug'>): string =>
  `${workspaceBase(workspace)}/ops`;

export interface OpsData {
  at: Date;
  health: DeploymentHealth;
  history: DeploymentHistory;
  ingest: IngestSeries;
  deliveries: DeliverySeries;
  slowHooks: SlowHook[];
  agents: { online: number; total: number; history: Series };
}

/** The page's live values: text by key, charts by key. */
export interface OpsFigures {
  at: string;
  text: Record<string, string>;
  charts: Record<string, Chart>;
}

/** "—", "0.4 s", "42 s", "3.5 min", "2.1 h". */
export function duration(ms: number | null): string {
  if (ms === null) return '—';
  const seconds = ms / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** The last complete minute of a per-minute series (the current one is still filling). */
const lastFullMinute = (values: readonly number[]): number => values[values.length - 2] ?? 0;
const total = (values: readonly number[]): number => values.reduce((sum, v) => sum + v, 0);

/** History ending with the live value, so a chart's right end is "now", not the last sample. */
const endingWith = (values: Series, now: number): Series => [...values.slice(0, -1), now];

export function opsFigures(data: OpsData): OpsFigures {
  const text: Record<string, string> = {};
  const charts: Record<string, Chart> = {};
  for (const q of data.health.queues) {
    const history = data.history.queues[q.queue];
    text[`queue.${q.queue}.waiting`] = number(q.waiting);
    text[`queue.${q.queue}.active`] = number(q.active);
    text[`queue.${q.queue}.failed`] = number(q.failed);
    text[`queue.${q.queue}.oldest`] = duration(q.oldestWaitingAgeMs);
    charts[`queue.${q.queue}`] = chart(
      [endingWith(history?.waiting ?? [], q.waiting), endingWith(history?.failed ?? [], q.failed)],
      (peak) =>
        `${q.queue}, last hour: ${q.waiting} waiting and ${q.failed} failed now, peak ${peak}`,
    );
  }
  text['outbox.lag'] = duration(data.health.outboxLagMs);
  charts.outbox = chart(
    [endingWith(data.history.outboxLagMs, data.health.outboxLagMs).map(toSeconds)],
    (peak) => `Outbox lag, last hour: ${duration(data.health.outboxLagMs)} now, peak ${peak} s`,
  );
  const { accepted, stored } = data.ingest;
  text['ingest.accepted'] = number(lastFullMinute(accepted));
  text['ingest.stored'] = number(lastFullMinute(stored));
  text['ingest.hour'] = `${plural(total(accepted), 'report')} accepted in the last hour`;
  charts.ingest = chart(
    [accepted, stored],
    (peak) =>
      `Error reports per minute, last hour: ${lastFullMinute(accepted)} accepted and ` +
      `${lastFullMinute(stored)} stored in the last minute, peak ${peak}`,
  );
  const { attempts, failed } = data.deliveries;
  text['deliveries.attempts'] = number(lastFullMinute(attempts));
  text['deliveries.failed'] = number(lastFullMinute(failed));
  text['deliveries.hour'] =
    `${plural(total(attempts), 'delivery', 'deliveries')}, ${number(total(failed))} failed, in the last hour`;
  charts.deliveries = chart(
    [attempts, failed],
    (peak) =>
      `Outgoing deliveries per minute, last hour: ${lastFullMinute(attempts)} sent and ` +
      `${lastFullMinute(failed)} failed in the last minute, peak ${peak}`,
  );
  text['agents.online'] = number(data.agents.online);
  text['agents.total'] = `of ${plural(data.agents.total, 'agent')} registered`;
  charts.agents = chart(
    [endingWith(data.agents.history, data.agents.online)],
    (peak) => `Agents online, last hour: ${data.agents.online} now, peak ${peak}`,
  );
  text.updated = `Updated ${data.at.toISOString().slice(11, 19)} UTC`;
  return { at: data.at.toISOString(), text, charts };
}

const toSeconds = (ms: number | null): number | null => (ms === null ? null : ms / 1000);

/** A figure's text, tagged so the live script can replace it. */
const figure = (figures: OpsFigures, key: string): SafeHtml =>
  html`<span data-figure="${key}">${figures.text[key] ?? ''}</span>`;

const spark = (figures: OpsFigures, key: string): SafeHtml =>
  figures.charts[key] ? sparkline(key, figures.charts[key]) : html``;

/** "12 accepted/min": the number large, its unit small, kept on one line. */
const stat = (figures: OpsFigures, key: string, unit: string): SafeHtml =>
  html`<span class="ops-stat">${figure(figures, key)} <span class="unit">${unit}</span></span>`;

function legend(first: string, second?: string): SafeHtml {
  return html`<p class="spark-legend small-text muted">
    <span class="swatch series-0" aria-hidden="true"></span>${first}
    ${second ? html`<span class="swatch series-1" aria-hidden="true"></span>${second}` : ''}
  </p>`;
}

function tiles(f: OpsFigures): SafeHtml {
  return html`<div class="cards ops-tiles">
    <section class="card ops-tile" aria-labelledby="ops-ingest">
      <h2 id="ops-ingest">Error ingest</h2>
      <p class="ops-value">
        ${stat(f, 'ingest.accepted', 'accepted/min')} ${stat(f, 'ingest.stored', 'stored/min')}
      </p>
      ${spark(f, 'ingest')} ${legend('accepted', 'stored')}
      <p class="small-text muted">${figure(f, 'ingest.hour')}</p>
    </section>
    <section class="card ops-tile" aria-labelledby="ops-deliveries">
      <h2 id="ops-deliveries">Outgoing deliveries</h2>
      <p class="ops-value">
        ${stat(f, 'deliveries.attempts', 'sent/min')} ${stat(f, 'deliveries.failed', 'failed/min')}
      </p>
      ${spark(f, 'deliveries')} ${legend('sent', 'failed')}
      <p class="small-text muted">${figure(f, 'deliveries.hour')}</p>
    </section>
    <section class="card ops-tile" aria-labelledby="ops-agents">
      <h2 id="ops-agents">Agents online</h2>
      <p class="ops-value">
        <span class="ops-stat"
          >${figure(f, 'agents.online')}
          <span class="unit">${figure(f, 'agents.total')}</span></span
        >
      </p>
      ${spark(f, 'agents')} ${legend('online')}
    </section>
    <section class="card ops-tile" aria-labelledby="ops-outbox">
      <h2 id="ops-outbox">Outbox lag</h2>
      <p class="ops-value"><span class="ops-stat">${figure(f, 'outbox.lag')}</span></p>
      ${spark(f, 'outbox')} ${legend('oldest event not yet relayed')}
      <p class="small-text muted">Whole deployment</p>
    </section>
  </div>`;
}

function queuesTable(data: OpsData, f: OpsFigures): SafeHtml {
  return html`<section class="ops-section" aria-labelledby="ops-queues">
    <h2 id="ops-queues">Queues</h2>
    <p class="muted small-text">The whole deployment's job queues: counts only, no job contents.</p>
    ${scrollBox(
      'Queues',
      html`<table class="ops-queues">
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col" class="num">Waiting</th>
            <th scope="col" class="num">Active</th>
            <th scope="col" class="num">Failed</th>
            <th scope="col" class="num">Oldest waiting</th>
            <th scope="col">Last hour</th>
          </tr>
        </thead>
        <tbody>
          ${data.health.queues.map(
            (q) =>
              html`<tr data-queue="${q.queue}">
                <th scope="row"><code>${q.queue}</code></th>
                <td class="num">${figure(f, `queue.${q.queue}.waiting`)}</td>
                <td class="num">${figure(f, `queue.${q.queue}.active`)}</td>
                <td class="num">${figure(f, `queue.${q.queue}.failed`)}</td>
                <td class="num">${figure(f, `queue.${q.queue}.oldest`)}</td>
                <td>${spark(f, `queue.${q.queue}`)}</td>
              </tr>`,
          )}
        </tbody>
      </table>`,
    )}
    ${legend('waiting', 'failed')}
  </section>`;
}

function slowHooksTable(workspace: Pick<Workspace, 'id' | 'slug'>, hooks: SlowHook[]): SafeHtml {
  return html`<section class="ops-section" aria-labelledby="ops-slow">
    <h2 id="ops-slow">Slowest outgoing hooks</h2>
    <p class="muted small-text">The last hour's sends, slowest 95th percentile first.</p>
    ${
      hooks.length
        ? scrollBox(
            'Slowest outgoing hooks',
            html`<table class="ops-hooks">
              <thead>
                <tr>
                  <th scope="col">Hook</th>
                  <th scope="col" class="num">p95</th>
                  <th scope="col" class="num">Slowest</th>
                  <th scope="col" class="num">Sends</th>
                  <th scope="col" class="num">Failed</th>
                </tr>
              </thead>
              <tbody>
                ${hooks.map(
                  (h) =>
                    html`<tr>
                      <td>
                        <a href="${outgoingHookPath(workspace, h.roomId, h.hookId)}"
                          >${h.targetHost}</a
                        >
                        <span class="muted small-text">in ${h.roomName}</span>
                      </td>
                      <td class="num">${duration(h.p95Ms)}</td>
                      <td class="num">${duration(h.maxMs)}</td>
                      <td class="num">${number(h.attempts)}</td>
                      <td class="num">${number(h.failed)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`,
          )
        : html`<p class="card muted">No outgoing delivery was sent in the last hour.</p>`
    }
  </section>`;
}

function failedJobsTable(ctx: PageContext, base: string, jobs: WorkspaceFailedJob[]): SafeHtml {
  return html`<section class="ops-section" aria-labelledby="ops-failed">
    <h2 id="ops-failed">Failed jobs</h2>
    <p class="muted small-text">
      This workspace's jobs that used all their tries. Retry runs one again with its tries counted
      from zero.
    </p>
    ${
      jobs.length
        ? scrollBox(
            'Failed jobs',
            html`<table class="ops-failed">
              <thead>
                <tr>
                  <th scope="col">Job and last error</th>
                  <th scope="col">Failed</th>
                  <th scope="col"><span class="visually-hidden">Action</span></th>
                </tr>
              </thead>
              <tbody>
                ${jobs.map(
                  (job) =>
                    html`<tr data-job="${job.queue}/${job.id}">
                      <td>
                        <code>${job.queue}</code>
                        <span class="muted small-text">#${job.id}</span>
                        <span class="muted small-text"
                          >· ${plural(job.attemptsMade, 'try', 'tries')}</span
                        >
                        <p class="ops-reason">${job.reason || '—'}</p>
                      </td>
                      <td class="ops-when">${timeAgo(job.failedAt)}</td>
                      <td class="actions">
                        <form
                          method="post"
                          action="${base}/jobs/${encodeURIComponent(job.queue)}/${encodeURIComponent(job.id)}/retry"
                          class="inline"
                        >
                          ${csrfField(ctx)}
                          <button
                            type="submit"
                            class="secondary small"
                            aria-label="Retry ${job.queue} job ${job.id}"
                          >
                            Retry
                          </button>
                        </form>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`,
          )
        : html`<p class="card muted">No failed job of this workspace.</p>`
    }
  </section>`;
}

export function opsPage(
  ctx: PageContext,
  data: OpsData & {
    workspace: Pick<Workspace, 'id' | 'slug'>;
    failedJobs: WorkspaceFailedJob[];
    canRetry: boolean;
  },
): SafeHtml {
  const base = opsPath(data.workspace);
  const f = opsFigures(data);
  return layout(ctx, {
    title: 'Ops',
    section: 'ops',
    body: html`<div class="ops" data-figures-url="${base}/figures">
      <div class="page-head">
        <h1>Ops</h1>
        <p class="muted small-text">${figure(f, 'updated')} · refreshes every 5 s</p>
      </div>
      ${tiles(f)} ${queuesTable(data, f)} ${slowHooksTable(data.workspace, data.slowHooks)}
      ${data.canRetry ? failedJobsTable(ctx, base, data.failedJobs) : ''}
    </div>`,
    scripts: ['/assets/ops.js'],
  });
}
