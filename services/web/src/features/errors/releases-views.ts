import type { Workspace } from '@ferry/db';
import type { ReleaseSummary } from '@ferry/workspace';
import { html, type SafeHtml } from '../../shared/html.js';
import { layout, workspaceBase, type PageContext } from '../../shared/layout.js';
import { code, muted, number, timeAgo, withQuery } from '../../shared/format.js';

export interface ReleasesPageData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  releases: readonly ReleaseSummary[];
}

/** The Errors list searched for one release's groups (`release:` reads the occurrences). */
function releaseSearch(base: string, version: string): string {
  const value = /[\s"]/.test(version) ? `"${version.replace(/"/g, '')}"` : version;
  return withQuery(`${base}/errors`, { q: `release:${value}` });
}

function deploysCell(release: ReleaseSummary): SafeHtml {
  if (release.deploys.length === 0) return muted('none');
  const [latest, ...older] = release.deploys;
  return html`${latest!.environment}${latest!.name ? html` (${latest!.name})` : ''}
  ${timeAgo(latest!.finishedAt)}${older.length ? html` <span class="muted">+${older.length} more</span>` : ''}`;
}

/**
 * Errors → Releases (issue 43): each release seen in events or made by `sentry-cli releases new`,
 * newest first (semantic version where names parse, else first seen), with its first event, its
 * deploys, and the groups it introduced or brought back.
 */
export function releasesPage(ctx: PageContext, data: ReleasesPageData): SafeHtml {
  const base = workspaceBase(data.workspace);
  return layout(ctx, {
    title: 'Releases',
    section: 'error-releases',
    body: html`<div class="releases-view">
      <div class="page-head"><h1>Releases</h1></div>
      <p class="muted">
        Releases named by error events (a Sentry event's <code>release</code>, or a report's
        <code>app_version</code>) or created with <code>sentry-cli releases new</code>. Newest
        first: by semantic version where the names are versions, otherwise by when Ferry first saw
        them.
      </p>
      ${
        data.releases.length
          ? html`<div>
              <table class="releases-table" data-testid="releases">
                <thead>
                  <tr>
                    <th scope="col">Release</th>
                    <th scope="col">First event</th>
                    <th scope="col">Deploys</th>
                    <th scope="col" class="num">New</th>
                    <th scope="col" class="num">Regressed</th>
                  </tr>
                </thead>
                <tbody>
                  ${data.releases.map(
                    (release) =>
                      html`<tr data-testid="release" data-version="${release.version}">
                        <td data-label="Release" class="release-version">
                          <a href="${releaseSearch(base, release.version)}"
                            >${code(release.version)}</a
                          >
                        </td>
                        <td data-label="First event">
                          ${release.firstEventAt ? timeAgo(release.firstEventAt) : muted('none yet')}
                        </td>
                        <td data-label="Deploys">${deploysCell(release)}</td>
                        <td data-label="New" class="num">${number(release.newGroups)}</td>
                        <td data-label="Regressed" class="num">
                          ${number(release.regressedGroups)}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
          : html`<div class="empty" data-testid="no-releases">
              <h2>No releases yet</h2>
              <p>
                Send a <code>release</code> with Sentry events (or <code>app_version</code> with
                reports), or run <code>sentry-cli releases new</code>.
              </p>
            </div>`
      }
    </div>`,
  });
}
