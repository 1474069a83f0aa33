import { ALWAYS_FILTERED_KEYS } from '@ferry/core';
import type { WorkspaceScrubbing, WorkspaceSettings } from '@ferry/db';
import { z } from 'zod';

/**
 * Settings > Error reporting's data scrubbing (issue 41): a workspace's own sensitive keys and
 * safe fields on top of @ferry/core's default rules, and whether the user's IP address is kept.
 * Stored in `workspaces.settings.scrubbing`; saved by saveScrubbingSettings, applied on ingest
 * through createScrubRulesCache.
 */

/** Longer than any real field name, short enough to read in a list. */
export const SCRUB_KEY_MAX_CHARS = 60;
/** Of each list: every key is matched against every key of every report, so the lists stay small. */
export const SCRUB_KEYS_MAX = 50;

/**
 * The IP address is not kept by default, unlike Sentry (whose "Prevent Storing of IP Addresses"
 * is off until turned on): an IP is personal data, Ferry's reports come from widgets on sites whose
 * visitors never agreed to anything, and grouping, alerts and triage work without it. A workspace
 * that wants it turns it on knowingly.
 */
export const DEFAULT_SCRUBBING: Readonly<WorkspaceScrubbing> = Object.freeze({
  extra_keys: [],
  safe_fields: [],
  keep_ip: false,
});

/** What someone typed, shortened so an error message quoting it stays one line. */
const quoted = (input: unknown): string => {
  const text = String(input);
  return `“${text.length > 24 ? `${text.slice(0, 24)}…` : text}”`;
};

const alwaysFiltered: ReadonlySet<string> = new Set(ALWAYS_FILTERED_KEYS);

/** One list: trimmed, lower-cased (keys are matched case-insensitively), each key once. */
function keyList(what: string, refuseAlwaysFiltered = false) {
  return z
    .array(
      z
        .string(`Each ${what} must be text.`)
        .trim()
        .toLowerCase()
        .min(1, `A ${what} cannot be empty.`)
        .max(SCRUB_KEY_MAX_CHARS, {
          error: (issue) =>
            `${quoted(issue.input)} is too long: each ${what} is at most ${SCRUB_KEY_MAX_CHARS} characters.`,
        })
        // The scrubber filters these whatever the list says (@ferry/core): say so, not ignore it.
        .refine((key) => !refuseAlwaysFiltered || !alwaysFiltered.has(key), {
          error: (issue) => `${quoted(issue.input)} is always filtered; it cannot be a ${what}.`,
        }),
      `Must be a list of ${what}s.`,
    )
    .transform((keys) => [...new Set(keys)])
    .pipe(z.array(z.string()).max(SCRUB_KEYS_MAX, `At most ${SCRUB_KEYS_MAX} ${what}s.`));
}

/** The whole setting, as the form (and any later API) sends it; a missing list is empty. */
export const scrubbingSettingsSchema = z.object({
  extra_keys: keyList('key').default([]),
  safe_fields: keyList('safe field', true).default([]),
  keep_ip: z.boolean('Must be true or false.').default(false),
});

/**
 * The workspace's setting from its settings JSON; the defaults when none was saved. A stored
 * value that does not parse (edited by hand) is read as the defaults too, which only scrub more.
 */
export function scrubbingSettingsOf(
  settings: WorkspaceSettings | null | undefined,
): WorkspaceScrubbing {
  const parsed = scrubbingSettingsSchema.safeParse(settings?.scrubbing ?? {});
  return parsed.success ? parsed.data : { ...DEFAULT_SCRUBBING, extra_keys: [], safe_fields: [] };
}
