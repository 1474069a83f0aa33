import { sql, type Kysely } from 'kysely';

/**
 * Issue 41: what `sentry-cli` uploads (services/ingest-errors sourcemaps/), per workspace.
 * - `upload_chunks`: pieces of an artifact bundle between the chunk POST and the assemble that
 *   uses them (then deleted; stale ones after a day), keyed by the SHA-1 sentry-cli names them by.
 * - `artifact_bundles` and `artifact_files`: an assembled bundle's minified files and source maps,
 *   unzipped, found by debug ID or by release + URL. `size_bytes` counts against the quota.
 * - `releases` and `release_deploys`: `sentry-cli releases new / finalize` and `deploys new`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table upload_chunks (
      workspace_id text not null references workspaces(id) on delete cascade,
      checksum text not null check (checksum ~ '^[0-9a-f]{40}$'),
      data bytea not null,
      created_at timestamptz not null default now(),
      primary key (workspace_id, checksum)
    )`.execute(db);
  await sql`
    create table artifact_bundles (
      id text primary key,
      workspace_id text not null references workspaces(id) on delete cascade,
      checksum text not null,
      release text,
      dist text,
      size_bytes bigint not null check (size_bytes >= 0),
      file_count integer not null,
      created_at timestamptz not null default now(),
      unique (workspace_id, checksum)
    )`.execute(db);
  await sql`
    create table artifact_files (
      bundle_id text not null references artifact_bundles(id) on delete cascade,
      workspace_id text not null,
      path text not null,
      kind text not null check (kind in ('minified_source', 'source_map')),
      url text not null,
      debug_id uuid,
      sourcemap text,
      content bytea not null,
      primary key (bundle_id, path)
    )`.execute(db);
  await sql`create index artifact_files_debug_id on artifact_files (workspace_id, debug_id, kind)
    where debug_id is not null`.execute(db);
  await sql`create index artifact_files_url on artifact_files (workspace_id, url)`.execute(db);
  await sql`
    create table releases (
      workspace_id text not null references workspaces(id) on delete cascade,
      version text not null,
      url text,
      date_started timestamptz,
      date_released timestamptz,
      created_at timestamptz not null default now(),
      primary key (workspace_id, version)
    )`.execute(db);
  await sql`
    create table release_deploys (
      id text primary key,
      workspace_id text not null,
      version text not null,
      environment text not null,
      name text,
      url text,
      date_started timestamptz,
      date_finished timestamptz not null,
      created_at timestamptz not null default now(),
      foreign key (workspace_id, version) references releases (workspace_id, version) on delete cascade
    )`.execute(db);
  await sql`create index release_deploys_by_release on release_deploys (workspace_id, version)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table release_deploys, releases, artifact_files, artifact_bundles, upload_chunks`.execute(
    db,
  );
}
