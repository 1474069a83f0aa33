import { scrubRules, type ScrubRules } from '@ferry/core';
import type { Db } from '@ferry/db';
import { TENANT_CACHE_TTL_MS } from '../feedback/visitors.js';
import { scrubbingSettingsOf } from './scrubbing-settings.js';

/** Workspace id -> the scrubber's rules for its reports (its settings on top of the defaults). */
export interface ScrubRulesCache {
  rules(workspaceId: string): Promise<ScrubRules>;
}

/**
 * As long as the public key's answer is kept (createTenantCache): a report is scrubbed by rules at
 * most this old, so a change on the Error reporting page applies within it (the page says so).
 */
export const SCRUB_RULES_TTL_MS = TENANT_CACHE_TTL_MS;
/** Only known workspaces get here (the key was looked up first), but memory stays bounded. */
const MAX_ENTRIES = 10_000;

/**
 * Every accepted request asks this, so the rules are kept in process for SCRUB_RULES_TTL_MS; the
 * requests that miss together share one query. If that query fails, the rules last read are used
 * a while longer rather than none: with no rules at all the caller must refuse the report, since
 * the defaults alone could let a workspace's own secret through.
 */
export function createScrubRulesCache(db: Db, now: () => number = Date.now): ScrubRulesCache {
  const entries = new Map<string, { rules: ScrubRules; expiresAt: number }>();
  const loading = new Map<string, Promise<ScrubRules>>();

  async function load(workspaceId: string): Promise<ScrubRules> {
    const row = await db
      .selectFrom('workspaces')
      .select('settings')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    const settings = scrubbingSettingsOf(row?.settings);
    const rules = scrubRules({
      keys: settings.extra_keys,
      safeFields: settings.safe_fields,
      keepIp: settings.keep_ip,
    });
    if (entries.size >= MAX_ENTRIES) entries.clear();
    entries.set(workspaceId, { rules, expiresAt: now() + SCRUB_RULES_TTL_MS });
    return rules;
  }

  return {
    rules(workspaceId) {
      const hit = entries.get(workspaceId);
      if (hit && hit.expiresAt > now()) return Promise.resolve(hit.rules);
      let pending = loading.get(workspaceId);
      if (!pending) {
        pending = load(workspaceId)
          .catch((error: unknown) => {
            if (hit) return hit.rules;
            throw error;
          })
          .finally(() => loading.delete(workspaceId));
        loading.set(workspaceId, pending);
      }
      return pending;
    },
  };
}
