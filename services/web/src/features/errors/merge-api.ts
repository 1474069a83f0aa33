import { parseInput, requireJsonBody, type RouteTable } from '@ferry/http';
import { z } from 'zod';
import type { Db, ErrorGroup } from '@ferry/db';
import {
  FINGERPRINTS_SHOWN,
  MERGE_SOURCES_MAX,
  apiAuth,
  countMergedFingerprints,
  errorGroupJson,
  findErrorGroup,
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
      .max(MERGE_SOURCES_MAX, `Merge at most ${MERGE_SOURCES_MAX} groups at a time.`),
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

/**
 * The group's JSON with `fingerprints` (its own first, then up to FINGERPRINTS_SHOWN merged ones,
 * newest merge first) and `merged_fingerprints` (how many were merged in all). Two small reads.
 */
export async function withMergedFingerprints(
  db: Db,
  group: ErrorGroupJson,
  workspaceId: string,
): Promise<ErrorGroupJson & { fingerprints: GroupFingerprintJson[]; merged_fingerprints: number }> {
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

  routes.post('/merge', write, async (req, res) => {
    const { workspace } = apiAuth(res);
    const body = parseInput(mergeSchema, req.body, 'merge');
    const { target, merged } = await mergeErrorGroups(db, {
      workspaceId: workspace.id,
      actor: { kind: 'api' },
      targetId: body.target_id,
      sourceIds: body.group_ids,
    });
    res.json({ group: errorGroupJson(target), merged });
  });

  routes.post('/:groupId/unmerge', write, async (req, res) => {
    const { workspace } = apiAuth(res);
    const body = parseInput(unmergeSchema, req.body, 'unmerge');
    const group = await unmergeFingerprint(db, {
      workspaceId: workspace.id,
      actor: { kind: 'api' },
      groupId: String(req.params.groupId),
      fingerprint: body.fingerprint,
    });
    res.json({ group: await withMergedFingerprints(db, errorGroupJson(group), workspace.id) });
  });
}
