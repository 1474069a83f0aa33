import { z } from 'zod';
import { AppError, newId } from '@ferry/core';
import type { Db, ReleaseDeploysTable, ReleasesTable } from '@ferry/db';
import type { Selectable } from 'kysely';
import { storedText } from './limits.js';
import type { DeployJson, ReleaseJson } from './api-schemas.js';

/**
 * `sentry-cli releases new / finalize / info` and `deploys new / list`, answered in the shapes
 * sentry-cli reads (src/api/mod.rs: ReleaseInfo, Deploy): a release's version and dates, a
 * deploy's environment, name, URL and dates. Commits and refs are accepted and not kept.
 */

const when = z
  .string()
  .max(64)
  .refine((value) => Number.isFinite(Date.parse(value)), 'an ISO 8601 date and time')
  .nullish();

/** A version as Sentry allows it: no slash, no leading or trailing space, not `.` or `..`. */
export const releaseVersion = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (v) => !v.includes('/') && v.trim() === v && v !== '.' && v !== '..' && !/[\n\r\t\0]/.test(v),
    'a release version without slashes, line breaks, NUL characters or surrounding spaces',
  );

export const newReleaseSchema = z.object({
  version: releaseVersion,
  projects: z.array(z.string().max(200)).max(100).optional(),
  url: storedText().max(2_000).nullish(),
  dateStarted: when,
  dateReleased: when,
});

export const updatedReleaseSchema = z.object({
  url: storedText().max(2_000).nullish(),
  dateReleased: when,
  projects: z.array(z.string().max(200)).max(100).optional(),
});

export const newDeploySchema = z.object({
  environment: storedText().min(1).max(64),
  name: storedText().max(200).nullish(),
  url: storedText().max(2_000).nullish(),
  dateStarted: when,
  dateFinished: when,
});

type Release = Selectable<ReleasesTable>;
type Deploy = Selectable<ReleaseDeploysTable>;

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;
const date = (value: string | null | undefined): Date | null => (value ? new Date(value) : null);

export function releaseJson(release: Release, projects: readonly string[] = []): ReleaseJson {
  return {
    version: release.version,
    url: release.url,
    dateCreated: release.created_at.toISOString(),
    dateStarted: iso(release.date_started),
    dateReleased: iso(release.date_released),
    newGroups: 0,
    projects: projects.map((slug) => ({ slug, name: slug })),
  };
}

export function deployJson(deploy: Deploy): DeployJson {
  return {
    id: deploy.id,
    environment: deploy.environment,
    name: deploy.name,
    url: deploy.url,
    dateStarted: iso(deploy.date_started),
    dateFinished: iso(deploy.date_finished),
  };
}

const releaseNotFound = (version: string): AppError =>
  new AppError(
    'not_found',
    `No release "${version}" in this workspace: create it with sentry-cli releases new.`,
  );

/** Creates the release, or returns the one of that version (created: false), as Sentry does. */
export async function createRelease(
  db: Db,
  workspaceId: string,
  input: z.infer<typeof newReleaseSchema>,
): Promise<{ release: Release; created: boolean }> {
  const inserted = await db
    .insertInto('releases')
    .values({
      workspace_id: workspaceId,
      version: input.version,
      url: input.url ?? null,
      date_started: date(input.dateStarted),
      date_released: date(input.dateReleased),
    })
    .onConflict((oc) => oc.columns(['workspace_id', 'version']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { release: inserted, created: true };
  return { release: await findRelease(db, workspaceId, input.version), created: false };
}

/**
 * A version from a path: one that could never have been created names no release (a NUL in it
 * would otherwise reach PostgreSQL as an error, a 500, rather than a miss).
 */
function assertCreatable(version: string): void {
  if (!releaseVersion.safeParse(version).success) throw releaseNotFound(version);
}

export async function findRelease(db: Db, workspaceId: string, version: string): Promise<Release> {
  assertCreatable(version);
  const release = await db
    .selectFrom('releases')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('version', '=', version)
    .executeTakeFirst();
  if (!release) throw releaseNotFound(version);
  return release;
}

/** `releases finalize` (dateReleased) and `--url`: only what is sent changes. */
export async function updateRelease(
  db: Db,
  workspaceId: string,
  version: string,
  input: z.infer<typeof updatedReleaseSchema>,
): Promise<Release> {
  const changes = {
    ...(input.url !== undefined && { url: input.url }),
    ...(input.dateReleased !== undefined && { date_released: date(input.dateReleased) }),
  };
  assertCreatable(version);
  if (Object.keys(changes).length === 0) return findRelease(db, workspaceId, version);
  const updated = await db
    .updateTable('releases')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
  if (!updated) throw releaseNotFound(version);
  return updated;
}

export async function createDeploy(
  db: Db,
  workspaceId: string,
  version: string,
  input: z.infer<typeof newDeploySchema>,
): Promise<Deploy> {
  await findRelease(db, workspaceId, version);
  return db
    .insertInto('release_deploys')
    .values({
      id: newId('releaseDeploy'),
      workspace_id: workspaceId,
      version,
      environment: input.environment,
      name: input.name ?? null,
      url: input.url ?? null,
      date_started: date(input.dateStarted),
      date_finished: date(input.dateFinished) ?? new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listDeploys(db: Db, workspaceId: string, version: string): Promise<Deploy[]> {
  await findRelease(db, workspaceId, version);
  return db
    .selectFrom('release_deploys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('version', '=', version)
    .orderBy('date_finished', 'desc')
    .limit(100)
    .execute();
}
