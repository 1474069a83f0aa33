import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { z } from 'zod';
import { AppError } from '@ferry/core';
import { toAppError } from '@ferry/http';
import { access, routeTable, type MountedTable, type RouteDoc } from '@ferry/http';
import { apiAuth, requireToken } from '@ferry/workspace';
import type { IngestDeps } from '../deps.js';
import {
  assembleResponseSchema,
  chunkUploadOptionsSchema,
  deployJsonSchema,
  releaseJsonSchema,
  sentryErrorSchema,
} from './api-schemas.js';
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

const orgParam = z.string().meta({
  description: 'The workspace’s slug: it must be the API token’s own workspace (403 otherwise).',
  example: 'acme',
});
const orgParams = z.object({ org: orgParam });
const releaseParams = z.object({
  org: orgParam,
  version: z.string().meta({ description: 'The release’s version.', example: 'shop@2.4.1' }),
});

/**
 * What every one of these endpoints shares: sentry-cli's section, the API token, Sentry's error
 * shape. A JSON body is read by the handler (`parsed`): its refusals are Sentry's 400 with the
 * field in `detail`, which sentry-cli prints, so it is described rather than validated by mount.
 */
function cliDoc(
  own: Pick<RouteDoc, 'summary' | 'description' | 'params' | 'responses'> & {
    json?: { schema: z.ZodType; description: string };
  },
): RouteDoc {
  return {
    summary: own.summary,
    ...(own.description ? { description: own.description } : {}),
    tag: 'Sentry',
    security: 'bearer',
    params: own.params ?? orgParams,
    ...(own.json
      ? {
          rawBody: {
            contentTypes: ['application/json'],
            description: `${own.json.description} A refused field answers 400 with \`detail\` naming it.`,
            schema: own.json.schema,
          },
        }
      : {}),
    errorSchema: sentryErrorSchema,
    responses: own.responses,
  };
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

  routes.get(
    '/chunk-upload',
    {
      access: token,
      before: [ownOrg],
      doc: cliDoc({
        summary: 'Chunk upload options',
        description:
          'What `sentry-cli sourcemaps upload` asks first: where to post chunks, their size and how many per request.',
        responses: {
          200: { description: 'The upload options.', schema: chunkUploadOptionsSchema },
        },
      }),
    },
    (_req, res) => {
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
    },
  );

  routes.post(
    '/chunk-upload',
    {
      access: token,
      // Up to 32 MB a request (UPLOAD_LIMITS.maxRequestSize), from CI machines on any link.
      bodyTimeout: 'upload',
      before: [ownOrg],
      doc: cliDoc({
        summary: 'Upload chunks',
        description:
          'Chunks of an artifact bundle, kept until the assemble that names them. They count towards the workspace’s source map quota (413 past it).',
        responses: { 200: { description: 'Stored.', schema: z.object({}) } },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const chunks = await readChunks(req);
      await storeChunks(deps.db, workspace.id, chunks, quotaMb);
      res.status(200).json({});
    },
  );

  routes.post(
    '/artifactbundle/assemble',
    {
      access: token,
      before: [ownOrg, json],
      doc: cliDoc({
        summary: 'Assemble an artifact bundle',
        description:
          'The bundle named by its SHA-1 and its chunks’ SHA-1s: answered `not_found` with the chunks still to upload, or assembled at once (unzipped, its source maps stored by debug id and URL) and answered `ok`. A bundle that cannot be read is refused with its reason.',
        json: {
          schema: assembleRequestSchema,
          description: 'The bundle’s checksum and chunks, and the release it belongs to.',
        },
        responses: {
          200: {
            description: 'Missing chunks, or the bundle stored.',
            schema: assembleResponseSchema,
          },
        },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const request = parsed(assembleRequestSchema, req.body);
      res.json(await assembleBundle(deps.db, workspace.id, request, quotaMb));
    },
  );

  routes.post(
    '/releases',
    {
      access: token,
      before: [ownOrg, json],
      doc: cliDoc({
        summary: 'Create a release',
        description: '`sentry-cli releases new`. Commits and refs are accepted and not kept.',
        json: { schema: newReleaseSchema, description: 'The release’s version and dates.' },
        responses: {
          201: { description: 'Created.', schema: releaseJsonSchema },
          208: {
            description: 'Already Reported, as Sentry answers: the release exists.',
            schema: releaseJsonSchema,
          },
        },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const input = parsed(newReleaseSchema, req.body);
      const { release, created } = await createRelease(deps.db, workspace.id, input);
      // 208 Already Reported, as Sentry answers a release that exists.
      res.status(created ? 201 : 208).json(releaseJson(release, input.projects));
    },
  );

  routes.get(
    '/releases/:version',
    {
      access: token,
      before: [ownOrg],
      doc: cliDoc({
        summary: 'Get a release',
        description: '`sentry-cli releases info`; 404 for a version the workspace does not have.',
        params: releaseParams,
        responses: { 200: { description: 'The release.', schema: releaseJsonSchema } },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      res.json(releaseJson(await findRelease(deps.db, workspace.id, req.params.version)));
    },
  );

  routes.put(
    '/releases/:version',
    {
      access: token,
      before: [ownOrg, json],
      doc: cliDoc({
        summary: 'Update a release',
        description: '`sentry-cli releases finalize`: its release date (and URL).',
        params: releaseParams,
        json: { schema: updatedReleaseSchema, description: 'The fields to change.' },
        responses: { 200: { description: 'The release, updated.', schema: releaseJsonSchema } },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const input = parsed(updatedReleaseSchema, req.body);
      const release = await updateRelease(deps.db, workspace.id, req.params.version, input);
      res.json(releaseJson(release, input.projects));
    },
  );

  routes.post(
    '/releases/:version/deploys',
    {
      access: token,
      before: [ownOrg, json],
      doc: cliDoc({
        summary: 'Record a deploy',
        description: '`sentry-cli deploys new`: the release went out to an environment.',
        params: releaseParams,
        json: { schema: newDeploySchema, description: 'The deploy’s environment, name and dates.' },
        responses: { 201: { description: 'Recorded.', schema: deployJsonSchema } },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const input = parsed(newDeploySchema, req.body);
      const deploy = await createDeploy(deps.db, workspace.id, req.params.version, input);
      res.status(201).json(deployJson(deploy));
    },
  );

  routes.get(
    '/releases/:version/deploys',
    {
      access: token,
      before: [ownOrg],
      doc: cliDoc({
        summary: 'List a release’s deploys',
        description: '`sentry-cli deploys list`.',
        params: releaseParams,
        responses: {
          200: {
            description: 'Its latest 100 deploys, the most recently finished first.',
            schema: z.array(deployJsonSchema),
          },
        },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const deploys = await listDeploys(deps.db, workspace.id, req.params.version);
      res.json(deploys.map(deployJson));
    },
  );

  return { base: SENTRY_API_BASE, table: routes };
}
