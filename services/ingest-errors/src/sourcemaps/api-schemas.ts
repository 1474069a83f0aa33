import { z } from 'zod';

/**
 * The answers of the endpoints sentry-cli calls, as zod schemas (issue 46): the OpenAPI
 * description is generated from them and the JSON functions' types are inferred from them. The
 * shapes are the ones sentry-cli reads (its src/api/mod.rs: ChunkServerOptions, AssembleDifsResponse,
 * ReleaseInfo, Deploy).
 */

const when = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601, UTC.' });
const sha1 = z.string().meta({ example: '2ef7bde608ce5404e97d5f042f95f89f1c232871' });

/** Every error of these endpoints, as Sentry answers it: sentry-cli prints `detail`. */
export const sentryErrorSchema = z.object({
  detail: z.string().meta({
    description: 'A sentence a person can act on.',
    example: 'This API token belongs to the workspace "acme": pass --org acme.',
  }),
});

/** GET chunk-upload: where and how sentry-cli may upload. */
export const chunkUploadOptionsSchema = z.object({
  url: z.string().meta({
    description: 'Relative: sentry-cli resolves it against its SENTRY_URL.',
    example: '/api/0/organizations/acme/chunk-upload/',
  }),
  chunkSize: z.number().int(),
  chunksPerRequest: z.number().int(),
  maxRequestSize: z.number().int(),
  maxFileSize: z.number().int(),
  concurrency: z.number().int(),
  hashAlgorithm: z.literal('sha1'),
  compression: z.array(z.string()).meta({ example: ['gzip'] }),
  accept: z.array(z.string()).meta({ example: ['artifact_bundles', 'sources'] }),
});

/** POST artifactbundle/assemble: the chunks still missing, or the bundle stored. */
export const assembleResponseSchema = z.object({
  state: z.enum(['ok', 'not_found']).meta({
    description: '`not_found`: upload `missingChunks`, then assemble again; `ok`: stored.',
  }),
  missingChunks: z.array(sha1),
  detail: z.string().nullable(),
});

export type AssembleResponse = z.infer<typeof assembleResponseSchema>;

export const releaseJsonSchema = z
  .object({
    version: z.string().meta({ example: 'shop@2.4.1' }),
    url: z.string().nullable(),
    dateCreated: when,
    dateStarted: when.nullable(),
    dateReleased: when.nullable(),
    newGroups: z.number().int(),
    projects: z.array(z.object({ slug: z.string(), name: z.string() })),
  })
  .meta({ id: 'Release' });

export type ReleaseJson = z.infer<typeof releaseJsonSchema>;

export const deployJsonSchema = z.object({
  id: z.string(),
  environment: z.string().meta({ example: 'production' }),
  name: z.string().nullable(),
  url: z.string().nullable(),
  dateStarted: when.nullable(),
  dateFinished: when.nullable(),
});

export type DeployJson = z.infer<typeof deployJsonSchema>;
