import { sql } from 'kysely';
import type { Db, Tx } from '@ferry/db';
import { occurrenceDetailSchema } from './detail.js';
import { ruleSubject, type RuleSource } from './fingerprint-rule-subject.js';
import {
  firstMatchingRule,
  parseFingerprintRules,
  type FingerprintRule,
  type RuleSyntaxError,
} from './fingerprint-rules.js';

/** The saved rules' text, '' when the workspace has none. */
export async function fingerprintRulesSource(db: Db, workspaceId: string): Promise<string> {
  const row = await db
    .selectFrom('error_fingerprint_rules')
    .select('source')
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row?.source ?? '';
}

/**
 * Saves the rules when every line parses; otherwise saves nothing and returns the errors, each
 * with its line (the page shows them under the kept text). Empty text removes the rules.
 */
export async function saveFingerprintRules(
  db: Db,
  workspaceId: string,
  source: string,
): Promise<{ ok: true } | { ok: false; errors: RuleSyntaxError[] }> {
  const parsed = parseFingerprintRules(source);
  if (!parsed.ok) return parsed;
  if (parsed.rules.length === 0) {
    await db
      .deleteFrom('error_fingerprint_rules')
      .where('workspace_id', '=', workspaceId)
      .execute();
    return { ok: true };
  }
  await db
    .insertInto('error_fingerprint_rules')
    .values({ workspace_id: workspaceId, source })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ source, updated_at: sql`now()` }))
    .execute();
  return { ok: true };
}

/**
 * The batch's workspaces' rules, parsed (the writer reads them once per batch). Saved text always
 * parsed when saved; should a later release reject it, that workspace groups by the default.
 */
export async function readFingerprintRules(
  db: Db | Tx,
  workspaceIds: readonly string[],
): Promise<Map<string, FingerprintRule[]>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('error_fingerprint_rules')
    .select(['workspace_id', 'source'])
    .where('workspace_id', 'in', workspaceIds)
    .execute();
  const rules = new Map<string, FingerprintRule[]>();
  for (const row of rows) {
    const parsed = parseFingerprintRules(row.source);
    if (parsed.ok && parsed.rules.length > 0) rules.set(row.workspace_id, parsed.rules);
  }
  return rules;
}

/** How many recent occurrences "test this rule" looks at (issue 43). */
export const RULE_TEST_OCCURRENCES = 1_000;

export interface RuleTestResult {
  /** Occurrences looked at (at most RULE_TEST_OCCURRENCES, newest first). */
  looked: number;
  /** The matching occurrences' groups, most matches first: what the rules would regroup. */
  groups: { id: string; errorClass: string; message: string; matched: number; rule: string }[];
}

/** Which of the workspace's last 1,000 occurrences the given rules would regroup, and from where. */
export async function testFingerprintRules(
  db: Db,
  workspaceId: string,
  rules: readonly FingerprintRule[],
): Promise<RuleTestResult> {
  const rows = await db
    .selectFrom('error_occurrences as o')
    .innerJoin('error_groups as g', 'g.id', 'o.group_id')
    .select([
      'o.group_id',
      'o.error_class',
      'o.message',
      'o.backtrace',
      'o.environment',
      'o.app_version',
      'o.context',
      'o.detail',
      'o.source',
      'g.error_class as group_class',
      'g.latest_message',
    ])
    .where('o.workspace_id', '=', workspaceId)
    // Ids are time-ordered from receipt: the workspace index gives the last 1,000 received.
    .orderBy('o.id', 'desc')
    .limit(RULE_TEST_OCCURRENCES)
    .execute();
  const groups = new Map<string, RuleTestResult['groups'][number]>();
  for (const row of rows) {
    const detail = row.detail ? occurrenceDetailSchema.safeParse(row.detail) : undefined;
    const source: RuleSource = { ...row, detail: detail?.success ? detail.data : null };
    const rule = firstMatchingRule(rules, ruleSubject(source));
    if (!rule) continue;
    const group = groups.get(row.group_id);
    if (group) group.matched += 1;
    else {
      groups.set(row.group_id, {
        id: row.group_id,
        errorClass: row.group_class,
        message: row.latest_message,
        matched: 1,
        rule: `line ${rule.line}`,
      });
    }
  }
  return {
    looked: rows.length,
    groups: [...groups.values()].sort((a, b) => b.matched - a.matched),
  };
}
