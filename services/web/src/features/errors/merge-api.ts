import { inputOf, requireJsonBody, type RouteTable } from '@ferry/http';
import { z } from 'zod';
import type { Db, ErrorGroup } from '@ferry/db';
import {
  FINGERPRINTS_SHOWN,
  MERGE_SOURCES_MAX,
  apiAuth,
  countMergedFingerprints,
  errorGroupJson,
  errorGroupJsonSchema,
  findErrorGroup,
  groupFingerprintJsonSchema,
  groupFingerprints,
  mergeErrorGroups,
  mergedInto,
  unmergeFingerprint,
  type ErrorGroupJson,
  type GroupFingerprint,
  type GroupFingerprintJson,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { tokenScope } from '../../shared/access.js';

/**
 * Issue 43, merge and unmerge through /api/v1/errors (tenant:write): `POST /merge` folds groups
 * into a target, `POST /:groupId/unmerge` splits a merged fingerprint back out. The rules (422s,
 * 404s, idempotence) are mergeErrorGroups' and unmergeFingerprint's; these only read the body.
 */

const ID_MESSAGE = 'Must be an error group id.';
const groupId = z.string(ID_MESSAGE).trim().min(1, ID_MESSAGE).max(100, ID_MESSAGE);

const mergeSchema = z.object(
  {
    target_id: groupId,
    group_ids: z
      .array(groupId, 'Must be a list of error group ids.')
      .min(1, 'Name at least one group to merge.')
      .max(MERGE_SOURCES_MAX, `Merge at most ${MERGE_SOURCES_MAX} groups at a time.`)
      .meta({ description: 'The groups folded into the target.' }),
  },
  'Send a JSON object with "target_id" and "group_ids".',
);

const FINGERPRINT_MESSAGE = 'Must be one of the group’s merged fingerprints.';
const unmergeSchema = z.object(
  {
    fingerprint: z
      .string(FINGERPRINT_MESSAGE)
      .trim()
      .min(1, FINGERPRINT_MESSAGE)
      .max(200, FINGERPRINT_MESSAGE),
  },
  'Send a JSON object with "fingerprint".',
);

/** A fingerprint as the API answers it (dates as ISO 8601). */

function fingerprintJson(f: GroupFingerprint): GroupFingerprintJson {
  return {
    fingerprint: f.fingerprint,
    own: f.own,
    merged_group_id: f.merged_group_id,
    error_class: f.error_class,
    latest_message: f.latest_message,
    occurrence_count: f.occurrence_count,
    merged_at: f.merged_at?.toISOString() ?? null,
    merged_by: f.merged_by,
  };
}

/** A group's JSON as withMergedFingerprints gives it (GET /:groupId, POST /:groupId/unmerge). */
export const groupWithFingerprintsSchema = errorGroupJsonSchema.extend({
  fingerprints: z.array(groupFingerprintJsonSchema).meta({
    description: 'Its own fingerprint first, then the newest merged ones.',
  }),
  merged_fingerprints: z.number().int().min(0).meta({ description: 'Merged fingerprints in all.' }),
});

/**
 * The group's JSON with `fingerprints` (its own first, then up to FINGERPRINTS_SHOWN merged ones,
 * newest merge first) and `merged_fingerprints` (how many were merged in all). Two small reads.
 */
export async function withMergedFingerprints(
  db: Db,
  group: ErrorGroupJson,
  workspaceId: string,
): Promise<z.infer<typeof groupWithFingerprintsSchema>> {
  const [fingerprints, merged] = await Promise.all([
    groupFingerprints(db, workspaceId, group.id, { limit: FINGERPRINTS_SHOWN }),
    countMergedFingerprints(db, workspaceId, group.id),
  ]);
  return { ...group, fingerprints: fingerprints.map(fingerprintJson), merged_fingerprints: merged };
}

/** The group, or for an id merged away the group holding it now; undefined when neither. */
export async function findErrorGroupOrHolder(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<ErrorGroup | undefined> {
  const group = await findErrorGroup(db, workspaceId, id);
  if (group) return group;
  const holder = await mergedInto(db, workspaceId, id);
  return holder ? findErrorGroup(db, workspaceId, holder) : undefined;
}

export function mergeRoutes(routes: RouteTable, deps: WebDeps): void {
  const { db } = deps;
  const write = { access: tokenScope(deps, 'tenant:write'), before: [requireJsonBody] };

  routes.post(
    '/merge',
    {
      ...write,
      doc: {
        summary: 'Merge error groups',
        description:
          'Folds the groups into the target: their fingerprints, occurrences and counts become the target’s, and their ids answer as the target from then on. Merging a group already merged into the target changes nothing.',
        tag: 'Errors',
        security: 'bearer',
        body: mergeSchema,
        bodyName: 'merge',
        responses: {
          200: {
            description: 'The target as it is now.',
            schema: z.object({
              group: errorGroupJsonSchema,
              merged: z.number().int().min(0).meta({ description: 'Groups merged by this call.' }),
            }),
          },
        },
      },
    },
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      const body = inputOf(res.locals, 'body', mergeSchema);
      const { target, merged } = await mergeErrorGroups(db, {
        workspaceId: workspace.id,
        actor: { kind: 'api' },
        targetId: body.target_id,
        sourceIds: body.group_ids,
      });
      res.json({ group: errorGroupJson(target), merged });
    },
  );

  routes.post(
    '/:groupId/unmerge',
    {
      ...write,
      doc: {
        summary: 'Split a fingerprint out of a group',
        description:
          'Moves one merged fingerprint (see the group’s `fingerprints`) back out into a group of its own.',
        tag: 'Errors',
        security: 'bearer',
        params: z.object({
          groupId: z.string().meta({ example: 'egr_01m95vcs448p8d8nkpkmbpan9e' }),
        }),
        body: unmergeSchema,
        bodyName: 'unmerge',
        responses: {
          200: {
            description: 'The group it was split from, as it is now.',
            schema: z.object({
              group: groupWithFingerprintsSchema,
            }),
          },
        },
      },
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const body = inputOf(res.locals, 'body', unmergeSchema);
      const group = await unmergeFingerprint(db, {
        workspaceId: workspace.id,
        actor: { kind: 'api' },
        groupId: String(req.params.groupId),
        fingerprint: body.fingerprint,
      });
      res.json({ group: await withMergedFingerprints(db, errorGroupJson(group), workspace.id) });
    },
  );
}
