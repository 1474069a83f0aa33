import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SentryCli } from '@sentry/cli';
import {
  buildMinifiedApp,
  createApiToken,
  createWorkspace,
  runSentryCli,
  type SentryCliTarget,
} from '@ferry/testing';
import type { TokenScope, Workspace } from '@ferry/db';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * The real sentry-cli (npm @sentry/cli 3.8) uploads source maps to Ferry the two ways users do
 * (issue 41; docs.sentry.io/cli/releases/ and docs.sentry.io/platforms/javascript/sourcemaps/
 * uploading/cli/): debug IDs injected then `sourcemaps upload`, and `--release` with
 * `--url-prefix`; and it creates a release, finalizes it and records a deploy.
 */
describe('sentry-cli against Ferry', () => {
  let service: IngestService;

  beforeAll(async () => {
    service = await startIngestService();
  });

  afterAll(async () => {
    await service.close();
  });

  async function target(workspace: Workspace, scopes: TokenScope[] = ['releases:write']) {
    const token = await createApiToken(service.ctx.db, workspace, { scopes });
    return {
      binary: SentryCli.getPath(),
      url: service.url,
      token: token.raw,
      org: workspace.slug,
    } satisfies SentryCliTarget;
  }

  const files = (workspaceId: string) =>
    service.ctx.db
      .selectFrom('artifact_files')
      .select(['kind', 'url', 'debug_id', 'sourcemap'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('url')
      .execute();

  it('sourcemaps inject + upload: the bundle is stored with its debug IDs', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const cli = await target(ws);
    const app = await buildMinifiedApp();
    const inject = await runSentryCli(cli, ['sourcemaps', 'inject', 'dist'], app.root);
    expect(inject.code, inject.stderr).toBe(0);
    const upload = await runSentryCli(cli, ['sourcemaps', 'upload', 'dist'], app.root);
    expect(upload.code, upload.stderr).toBe(0);
    expect(upload.stdout).toContain('File processing complete');

    const stored = await files(ws.id);
    expect(stored).toEqual([
      {
        kind: 'minified_source',
        url: '~/app.min.js',
        debug_id: expect.stringMatching(/^[0-9a-f-]{36}$/) as string,
        sourcemap: 'app.min.js.map',
      },
      {
        kind: 'source_map',
        url: '~/app.min.js.map',
        debug_id: stored[0]!.debug_id,
        sourcemap: null,
      },
    ]);
    // No chunk is left behind once its bundle is assembled.
    const chunks = await service.ctx.db
      .selectFrom('upload_chunks')
      .select('checksum')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(chunks).toEqual([]);

    // The same upload again: the server has it, nothing is sent twice.
    const again = await runSentryCli(cli, ['sourcemaps', 'upload', 'dist'], app.root);
    expect(again.code, again.stderr).toBe(0);
    expect(await files(ws.id)).toHaveLength(2);
  });

  it('sourcemaps upload --release --url-prefix, releases new / finalize, deploys new', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const cli = await target(ws);
    const app = await buildMinifiedApp();
    const release = 'shop@2.0.0+build.7';
    const steps = [
      ['releases', 'new', release],
      ['sourcemaps', 'upload', '--release', release, '--url-prefix', '~/assets', 'dist'],
      ['releases', 'finalize', release],
      ['deploys', 'new', '--release', release, '-e', 'production', '-n', 'deploy 7'],
    ];
    for (const step of steps) {
      const result = await runSentryCli(cli, step, app.root);
      expect(result.code, `${step.join(' ')}: ${result.stderr}`).toBe(0);
    }
    expect(await files(ws.id)).toEqual([
      {
        kind: 'minified_source',
        url: '~/assets/app.min.js',
        debug_id: null,
        sourcemap: 'app.min.js.map',
      },
      { kind: 'source_map', url: '~/assets/app.min.js.map', debug_id: null, sourcemap: null },
    ]);
    const bundle = await service.ctx.db
      .selectFrom('artifact_bundles')
      .select(['release', 'file_count'])
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(bundle).toEqual({ release, file_count: 2 });
    const stored = await service.ctx.db
      .selectFrom('releases')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(stored.version).toBe(release);
    expect(stored.date_released).toBeInstanceOf(Date);
    const deploys = await service.ctx.db
      .selectFrom('release_deploys')
      .select(['environment', 'name', 'version'])
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(deploys).toEqual([{ environment: 'production', name: 'deploy 7', version: release }]);

    const info = await runSentryCli(cli, ['deploys', 'list', '--release', release], app.root);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain('production');
  });

  it('a token without releases:write, and another workspace’s org, are refused with their reason', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const other = await createWorkspace(service.ctx.db);
    const app = await buildMinifiedApp();
    const readOnly = await target(ws, ['tenant:read']);
    const refused = await runSentryCli(
      readOnly,
      ['sourcemaps', 'upload', '--release', 'r1', 'dist'],
      app.root,
    );
    expect(refused.code).toBe(1);
    // sentry-cli prints Ferry's reason only when the body is exactly {"detail": "..."}.
    expect(refused.stderr).toContain(
      'sentry reported an error: This API token lacks the "releases:write" scope needed here.',
    );
    expect(refused.stderr).toContain('(http status: 403)');

    const elsewhere = { ...(await target(ws)), org: other.slug };
    const crossed = await runSentryCli(elsewhere, ['releases', 'new', 'r1'], app.root);
    expect(crossed.code).toBe(1);
    expect(crossed.stderr).toContain(
      `sentry reported an error: This API token belongs to the workspace "${ws.slug}": pass --org ${ws.slug}. (http status: 403)`,
    );
    expect(
      await service.ctx.db
        .selectFrom('releases')
        .select('version')
        .where('workspace_id', 'in', [ws.id, other.id])
        .execute(),
    ).toEqual([]);
  });
});
