import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { z } from 'zod';
import { AppError } from '@ferry/core';
import { toAppError } from '@ferry/http';
import { access, routeTable, type MountedTable } from '@ferry/http';
import { apiAuth, requireToken } from '@ferry/workspace';
import type { IngestDeps } from '../deps.js';
import { assembleBundle, assembleRequestSchema } from './assemble.js';
import { readChunks, storeChunks } from './chunks.js';
import { UPLOAD_LIMITS } from './limits.js';
import {
  createDeploy,
  createRelease,
  deployJson,
  findRelease,
  listDeploys,
  newDeploySchema,
  newReleaseSchema,
  releaseJson,
  updateRelease,
  updatedReleaseSchema,
} from './releases.js';

/**
 * The `/api/0/organizations/:org/...` endpoints `sentry-cli` calls (DESIGN.md, fourth wave):
 * chunk upload, artifact bundle assemble, releases and deploys, exactly as far as sentry-cli
 * needs them. An API token with `releases:write` authenticates; `:org` is the workspace's slug and
 * must be the token's own. Errors answer in Sentry's shape, `{"detail": "..."}`, which sentry-cli
 * prints as "sentry reported an error: <detail>".
 */
export const SENTRY_API_BASE = '/api/0/organizations/:org';

/** Every error of these routes as Sentry answers: its status, `{"detail": message}`. */
export const sentryApiErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  const appError = toAppError(error);
  // A 5xx goes on to the shared handler, which logs it (and still never shows a stack).
  if (appError.status >= 500) {
    next(error);
    return;
  }
  for (const [name, value] of Object.entries(appError.options.headers ?? {})) {
    res.setHeader(name, value);
  }
  // Exactly one key: sentry-cli reads {"detail": ...} (or {"error": ...}) and nothing beside it.
  res.status(appError.status).json({ detail: appError.message });
};

function parsed<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new AppError('bad_request', `${where}${issue?.message ?? 'invalid body'}`);
}

export function sentryApiTable(deps: IngestDeps): MountedTable {
  const routes = routeTable();
  const token = access.scope('releases:write', requireToken(deps, 'releases:write'));
  /** The path's org must be the token's workspace: a token never reaches another workspace. */
  const ownOrg: RequestHandler = (req, res, next) => {
    const { workspace } = apiAuth(res);
    if ((req.params as { org?: string }).org !== workspace.slug) {
      next(
        new AppError(
          'forbidden',
          `This API token belongs to the workspace "${workspace.slug}": pass --org ${workspace.slug}.`,
        ),
      );
      return;
    }
    next();
  };
  const json = express.json({ limit: '256kb', type: () => true });
  const quotaMb = deps.settings.SOURCE_MAP_QUOTA_MB;

  routes.get('/chunk-upload', { access: token, before: [ownOrg] }, (_req, res) => {
    const { workspace } = apiAuth(res);
    res.json({
      // Relative: sentry-cli resolves it against its SENTRY_URL, so no public URL is needed.
      url: `/api/0/organizations/${encodeURIComponent(workspace.slug)}/chunk-upload/`,
      chunkSize: UPLOAD_LIMITS.chunkSize,
      chunksPerRequest: UPLOAD_LIMITS.chunksPerRequest,
      maxRequestSize: UPLOAD_LIMITS.maxRequestSize,
      maxFileSize: UPLOAD_LIMITS.maxFileBytes,
      concurrency: 2,
      hashAlgorithm: 'sha1',
      compression: ['gzip'],
      accept: ['artifact_bundles', 'sources'],
    });
  });

  routes.post('/chunk-upload', { access: token, before: [ownOrg] }, async (req, res) => {
    const { workspace } = apiAuth(res);
    const chunks = await readChunks(req);
    await storeChunks(deps.db, workspace.id, chunks, quotaMb);
    res.status(200).json({});
  });

  routes.post(
    '/artifactbundle/assemble',
    { access: token, before: [ownOrg, json] },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const request = parsed(assembleRequestSchema, req.body);
      res.json(await assembleBundle(deps.db, workspace.id, request, quotaMb));
    },
  );

  routes.post('/releases', { access: token, before: [ownOrg, json] }, async (req, res) => {
    const { workspace } = apiAuth(res);
    const input = parsed(newReleaseSchema, req.body);
    const { release, created } = await createRelease(deps.db, workspace.id, input);
    // 208 Already Reported, as Sentry answers a release that exists.
    res.status(created ? 201 : 208).json(releaseJson(release, input.projects));
  });

  routes.get('/releases/:version', { access: token, before: [ownOrg] }, async (req, res) => {
    const { workspace } = apiAuth(res);
    res.json(releaseJson(await findRelease(deps.db, workspace.id, req.params.version)));
  });

  routes.put('/releases/:version', { access: token, before: [ownOrg, json] }, async (req, res) => {
    const { workspace } = apiAuth(res);
    const input = parsed(updatedReleaseSchema, req.body);
    const release = await updateRelease(deps.db, workspace.id, req.params.version, input);
    res.json(releaseJson(release, input.projects));
  });

  routes.post(
    '/releases/:version/deploys',
    { access: token, before: [ownOrg, json] },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const input = parsed(newDeploySchema, req.body);
      const deploy = await createDeploy(deps.db, workspace.id, req.params.version, input);
      res.status(201).json(deployJson(deploy));
    },
  );

  routes.get(
    '/releases/:version/deploys',
    { access: token, before: [ownOrg] },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const deploys = await listDeploys(deps.db, workspace.id, req.params.version);
      res.json(deploys.map(deployJson));
    },
  );

  return { base: SENTRY_API_BASE, table: routes };
}
