import { AppError } from '@ferry/core';
import { sql } from 'kysely';
import type { Db, ErrorGroup, Tx } from '@ferry/db';
import { findErrorGroup } from './errors.js';

/**
 * Releases as triage sees them (issue 43, part 6): their order, the releases the writer sees in
 * events, the release list, and "Resolve in next release".
 *
 * Order is semantic version where both names parse (`1.2.3`, `v1.2.3-beta.1`, `app@1.2.3`, build
 * metadata ignored), otherwise the order Ferry first knew of them (`releases.created_at`: the
 * first event naming it, or `sentry-cli releases new`).
 */

interface Semver {
  pkg: string;
  core: [number, number, number];
  pre: string[];
}

const SEMVER =
  /^(?:(.+)@)?v?(\d{1,15})\.(\d{1,15})\.(\d{1,15})(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseSemver(version: string): Semver | null {
  const match = SEMVER.exec(version);
  if (!match) return null;
  return {
    pkg: match[1] ?? '',
    core: [Number(match[2]), Number(match[3]), Number(match[4])],
    pre: match[5] ? match[5].split('.') : [],
  };
}

function comparePre(a: readonly string[], b: readonly string[]): number {
  // A release without a pre-release part is newer than one with it (1.0.0 > 1.0.0-rc.1).
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    if (numeric) return Number(x) - Number(y);
    if (/^\d+$/.test(x)) return -1; // numeric identifiers sort before alphanumeric ones
    if (/^\d+$/.test(y)) return 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Semver order of two versions of the same package, or null when they are not both semver. */
export function compareSemver(a: string, b: string): number | null {
  const x = parseSemver(a);
  const y = parseSemver(b);
  if (!x || !y || x.pkg !== y.pkg) return null;
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i]! - y.core[i]!;
  return comparePre(x.pre, y.pre);
}

/** When Ferry first knew of each release; a release it has never seen sorts as the newest. */
export type FirstSeen = ReadonlyMap<string, Date>;

/** Negative when `a` is older than `b`, positive when newer, 0 when the same place. */
export function compareReleases(a: string, b: string, firstSeen: FirstSeen): number {
  if (a === b) return 0;
  const semver = compareSemver(a, b);
  if (semver !== null && semver !== 0) return semver;
  const at = firstSeen.get(a)?.getTime() ?? Number.POSITIVE_INFINITY;
  const bt = firstSeen.get(b)?.getTime() ?? Number.POSITIVE_INFINITY;
  if (at !== bt) return at < bt ? -1 : 1;
  return a < b ? -1 : 1;
}

/**
 * Versions oldest first, as one total order: by first seen, then each package's semantic
 * versions re-sorted among the places they hold (a pairwise mix of the two rules would not be
 * transitive, and a sort needs that).
 */
export function orderReleases(versions: readonly string[], firstSeen: FirstSeen): string[] {
  const seen = (v: string) => firstSeen.get(v)?.getTime() ?? Number.POSITIVE_INFINITY;
  const order = [...new Set(versions)].sort((a, b) => seen(a) - seen(b) || (a < b ? -1 : 1));
  const packages = new Map<string, number[]>();
  order.forEach((version, index) => {
    const parsed = parseSemver(version);
    if (!parsed) return;
    packages.set(parsed.pkg, [...(packages.get(parsed.pkg) ?? []), index]);
  });
  for (const places of packages.values()) {
    const sorted = places.map((i) => order[i]!).sort((a, b) => compareSemver(a, b) ?? 0);
    places.forEach((place, i) => (order[place] = sorted[i]!));
  }
  return order;
}

async function firstSeenOf(
  db: Db | Tx,
  workspaceId: string,
  versions: readonly string[],
): Promise<Map<string, Date>> {
  if (versions.length === 0) return new Map();
  const rows = await db
    .selectFrom('releases')
    .select(['version', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('version', 'in', [...new Set(versions)])
    .execute();
  return new Map(rows.map((row) => [row.version, row.created_at]));
}

/**
 * Adds the releases a batch's events name to `releases` (one source for the list), with their
 * earliest event. Existing rows are only read: a busy release is named by every batch, and an
 * upsert would lock its row for each batch's whole transaction. Only a release that is new, or
 * that gets an event older than its first (rare), is written.
 */
export async function recordSeenReleases(
  tx: Tx,
  seen: readonly { workspaceId: string; version: string; occurredAt: string }[],
): Promise<void> {
  const earliest = new Map<string, { workspaceId: string; version: string; at: Date }>();
  for (const { workspaceId, version, occurredAt } of seen) {
    const key = `${workspaceId}\n${version}`;
    const at = new Date(occurredAt);
    const known = earliest.get(key);
    if (!known || at < known.at) earliest.set(key, { workspaceId, version, at });
  }
  if (earliest.size === 0) return;
  const wanted = [...earliest.values()];
  const { rows } = await sql<{
    workspace_id: string;
    version: string;
    first_event_at: Date | null;
  }>`
    select r.workspace_id, r.version, r.first_event_at
    from unnest(${wanted.map((r) => r.workspaceId)}::text[], ${wanted.map((r) => r.version)}::text[])
      as k(workspace_id, version)
    join releases r on r.workspace_id = k.workspace_id and r.version = k.version`.execute(tx);
  const stored = new Map(rows.map((row) => [`${row.workspace_id}\n${row.version}`, row]));
  const missing = wanted.filter((r) => !stored.has(`${r.workspaceId}\n${r.version}`));
  if (missing.length > 0) {
    await tx
      .insertInto('releases')
      .values(
        missing.map((r) => ({
          workspace_id: r.workspaceId,
          version: r.version,
          url: null,
          date_started: null,
          date_released: null,
          first_event_at: r.at,
        })),
      )
      .onConflict((oc) => oc.columns(['workspace_id', 'version']).doNothing())
      .execute();
  }
  for (const r of wanted) {
    const row = stored.get(`${r.workspaceId}\n${r.version}`);
    if (!row || (row.first_event_at && row.first_event_at <= r.at)) continue;
    await tx
      .updateTable('releases')
      .set({ first_event_at: r.at })
      .where('workspace_id', '=', r.workspaceId)
      .where('version', '=', r.version)
      .where((eb) => eb.or([eb('first_event_at', 'is', null), eb('first_event_at', '>', r.at)]))
      .execute();
  }
}

/** A resolved-in-next-release group that the batch's releases reopen. */
export interface HeldResolution {
  workspaceId: string;
  groupId: string;
  resolvedIn: string;
  releases: readonly string[];
}

/**
 * Of groups resolved "in next release" that got occurrences, the ids of those where one came on
 * a newer release than the one they were resolved in: reopened (a regression, as the upsert
 * does for a plain resolve). The rows are locked already by the writer's upsert.
 */
export async function reopenOnNewerRelease(
  tx: Tx,
  held: readonly HeldResolution[],
): Promise<Map<string, string>> {
  const reopened = new Map<string, string>();
  for (const group of held) {
    const firstSeen = await firstSeenOf(tx, group.workspaceId, [
      group.resolvedIn,
      ...group.releases,
    ]);
    const newer = group.releases.filter(
      (release) => compareReleases(release, group.resolvedIn, firstSeen) > 0,
    );
    if (newer.length === 0) continue;
    const newest = newer.reduce((a, b) => (compareReleases(a, b, firstSeen) >= 0 ? a : b));
    await tx
      .updateTable('error_groups')
      .set({
        status: 'unresolved',
        regressed_at: sql<Date>`now()`,
        regressed_in_release: newest,
        resolved_in_release: null,
      })
      .where('id', '=', group.groupId)
      .where('workspace_id', '=', group.workspaceId)
      .execute();
    reopened.set(group.groupId, newest);
  }
  return reopened;
}

/** Every release of the workspace (at most this many are ordered and listed). */
export const RELEASES_LISTED = 500;

export interface ReleaseSummary {
  version: string;
  /** When Ferry first knew of it (first event, or `sentry-cli releases new`). */
  createdAt: Date;
  firstEventAt: Date | null;
  dateReleased: Date | null;
  deploys: { environment: string; name: string | null; finishedAt: Date }[];
  newGroups: number;
  regressedGroups: number;
}

/** The workspace's releases, newest first in release order, with their counts and deploys. */
export async function listReleases(db: Db, workspaceId: string): Promise<ReleaseSummary[]> {
  const [releases, deploys, counts] = await Promise.all([
    db
      .selectFrom('releases')
      .select(['version', 'created_at', 'first_event_at', 'date_released'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .limit(RELEASES_LISTED)
      .execute(),
    db
      .selectFrom('release_deploys')
      .select(['version', 'environment', 'name', 'date_finished'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('date_finished', 'desc')
      .limit(RELEASES_LISTED * 4)
      .execute(),
    sql<{ version: string; new_groups: string; regressed_groups: string }>`
      select version, sum(n)::text as new_groups, sum(r)::text as regressed_groups from (
        select first_release as version, 1 as n, 0 as r from error_groups
          where workspace_id = ${workspaceId} and first_release is not null
        union all
        select regressed_in_release, 0, 1 from error_groups
          where workspace_id = ${workspaceId} and regressed_in_release is not null
      ) c group by version`.execute(db),
  ]);
  const firstSeen = new Map(releases.map((r) => [r.version, r.created_at]));
  const place = new Map(
    orderReleases(
      releases.map((r) => r.version),
      firstSeen,
    ).map((version, i) => [version, i]),
  );
  const countsOf = new Map(counts.rows.map((row) => [row.version, row]));
  return releases
    .map((release) => ({
      version: release.version,
      createdAt: release.created_at,
      firstEventAt: release.first_event_at,
      dateReleased: release.date_released,
      deploys: deploys
        .filter((deploy) => deploy.version === release.version)
        .map((deploy) => ({
          environment: deploy.environment,
          name: deploy.name,
          finishedAt: deploy.date_finished,
        })),
      newGroups: Number(countsOf.get(release.version)?.new_groups ?? 0),
      regressedGroups: Number(countsOf.get(release.version)?.regressed_groups ?? 0),
    }))
    .sort((a, b) => place.get(b.version)! - place.get(a.version)!);
}

/**
 * "Resolve in next release": resolved, held against the workspace's newest release, so an
 * occurrence on it or an older one does not reopen the group (the writer checks). Without any
 * release known there is no "next" to wait for: a clear 422.
 */
export async function resolveInNextRelease(
  db: Db,
  workspaceId: string,
  groupId: string,
): Promise<ErrorGroup | undefined> {
  const group = await findErrorGroup(db, workspaceId, groupId);
  if (!group) return undefined;
  const newest = await newestRelease(db, workspaceId);
  return db
    .updateTable('error_groups')
    .set({
      status: 'resolved',
      status_changed_at: sql<Date>`now()`,
      regressed_at: null,
      resolved_in_release: newest,
    })
    .where('id', '=', group.id)
    .where('workspace_id', '=', workspaceId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The release "resolve in next release" holds a group against: the workspace's newest known, in
 * release order. Without any there is no "next" to wait for: a clear 422 (the API checks this
 * before applying anything else a request asks for).
 */
export async function newestRelease(db: Db, workspaceId: string): Promise<string> {
  const releases = await db
    .selectFrom('releases')
    .select(['version', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .limit(RELEASES_LISTED)
    .execute();
  if (releases.length === 0) {
    throw new AppError(
      'validation_failed',
      'No release is known in this workspace yet, so there is no next one: resolve it plainly, or send events with a release.',
    );
  }
  const firstSeen = new Map(releases.map((r) => [r.version, r.created_at]));
  return orderReleases(
    releases.map((r) => r.version),
    firstSeen,
  ).at(-1)!;
}
