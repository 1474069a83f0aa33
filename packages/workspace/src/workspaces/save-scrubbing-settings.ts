import { sql } from 'kysely';
import { AppError, fieldErrors } from '@ferry/core';
import type { Db, WorkspaceScrubbing } from '@ferry/db';
import { scrubbingSettingsSchema } from './scrubbing-settings.js';

/**
 * Saves a workspace's data scrubbing (Settings > Error reporting) from a body of
 * `{extra_keys, safe_fields, keep_ip}`, or throws one 422 naming every bad field (a bad key in a
 * list is reported on the list: the form has one box per list). Only `settings.scrubbing` is
 * written, merged into the JSON in the same statement, so a setting saved beside it is kept.
 * Who may call it is the capability table's `errors.configure`, declared on the route. Ingest
 * applies the change within SCRUB_RULES_TTL_MS (its cache).
 */
export async function saveScrubbingSettings(
  db: Db,
  workspaceId: string,
  body: unknown,
): Promise<WorkspaceScrubbing> {
  const parsed = scrubbingSettingsSchema.safeParse(body);
  if (!parsed.success) {
    const fields: Record<string, string> = {};
    for (const [path, problem] of Object.entries(fieldErrors(parsed.error))) {
      fields[path.split('.')[0] ?? path] ??= problem;
    }
    const detail = Object.entries(fields)
      .map(([field, problem]) => `${field}: ${problem}`)
      .join(' ');
    throw new AppError('validation_failed', `The scrubbing settings are not valid. ${detail}`, {
      fields,
    });
  }
  const scrubbing: WorkspaceScrubbing = parsed.data;
  const saved = await db
    .updateTable('workspaces')
    .set({
      settings: sql`coalesce(settings, '{}'::jsonb) || jsonb_build_object('scrubbing', ${JSON.stringify(scrubbing)}::jsonb)`,
    })
    .where('id', '=', workspaceId)
    .returning('id')
    .executeTakeFirst();
  if (!saved) throw new AppError('not_found', 'No such workspace.');
  return scrubbing;
}
