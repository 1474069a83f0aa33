import { posix } from 'node:path';
import { z } from 'zod';
import type { Db, ShipRoute } from '@ferry/db';

/**
 * The ship policy (DESIGN.md): a proposal is a quick fix (committed to the base branch) when it
 * changes at most `maxFiles` files and `maxLines` lines and touches no always-reviewed path;
 * otherwise a PR. The server decides, never the agent, and says which rule decided.
 */
export interface ShipPolicyRules {
  maxFiles: number;
  maxLines: number;
  /**
   * Globs: `*` within a path segment, `**` across segments, `?` one character; case-sensitive, and
   * read from the repository root like the proposal's paths (see normalizeRepoPath).
   */
  alwaysReviewed: string[];
}

export const DEFAULT_SHIP_POLICY: ShipPolicyRules = {
  maxFiles: 3,
  maxLines: 60,
  alwaysReviewed: [],
};

export async function shipPolicy(db: Db, workspaceId: string): Promise<ShipPolicyRules> {
  const row = await db
    .selectFrom('ship_policies')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row
    ? { maxFiles: row.max_files, maxLines: row.max_lines, alwaysReviewed: row.always_reviewed }
    : DEFAULT_SHIP_POLICY;
}

const globsField = z
  .string('List one path pattern a line.')
  .max(4_000, 'At most 4,000 characters.')
  .transform((text) =>
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(z.string().max(200, 'Each pattern at most 200 characters.'))
      .max(50, 'At most 50 patterns.'),
  );

export const shipPolicySchema = z.object({
  max_files: z.coerce
    .number('A whole number.')
    .int('A whole number.')
    .min(0, 'At least 0.')
    .max(1_000, 'At most 1,000.'),
  max_lines: z.coerce
    .number('A whole number.')
    .int('A whole number.')
    .min(0, 'At least 0.')
    .max(100_000, 'At most 100,000.'),
  always_reviewed: globsField.default([]),
});

export async function saveShipPolicy(
  db: Db,
  workspaceId: string,
  input: z.output<typeof shipPolicySchema>,
): Promise<void> {
  const values = {
    max_files: input.max_files,
    max_lines: input.max_lines,
    always_reviewed: input.always_reviewed,
  };
  await db
    .insertInto('ship_policies')
    .values({ workspace_id: workspaceId, ...values })
    .onConflict((oc) =>
      oc.column('workspace_id').doUpdateSet({ ...values, updated_at: new Date() }),
    )
    .execute();
}

function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
      if (glob[i + 1] === '/') i++; // `**/` also matches no directory at all
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/**
 * A path as git names it, relative to the repository root: the agent may spell one file many ways
 * (`db//schema.rb`, `x/../db/schema.rb`, `/db/schema.rb`, `db\schema.rb`, a stray trailing
 * space), and each spelling must meet the same always-reviewed patterns. Backslashes are read as
 * separators (Windows agents), leading `/` as the root. Case is kept: git paths are case-sensitive.
 */
export function normalizeRepoPath(path: string): string {
  const slashed = path.trim().replace(/\\/g, '/').replace(/^\/+/, '');
  return posix.normalize(slashed).replace(/\/$/, '');
}

/** After normalizeRepoPath: `..` is left only where the path climbs above the repository root. */
export function escapesRepository(normalized: string): boolean {
  return normalized === '..' || normalized.startsWith('../');
}

export function matchesGlob(path: string, glob: string): boolean {
  return globToRegExp(normalizeRepoPath(glob)).test(normalizeRepoPath(path));
}

export interface RouteDecision {
  route: ShipRoute;
  /** The rule that decided, for the badge's hover text. */
  reason: string;
}

export function decideRoute(
  policy: ShipPolicyRules,
  proposal: { files: readonly string[]; lines: number },
): RouteDecision {
  for (const file of proposal.files.map(normalizeRepoPath)) {
    // No pattern can be trusted to cover a path outside the repository: a person looks at it.
    if (escapesRepository(file)) {
      return { route: 'pr', reason: `${file} is outside the repository, so it is always reviewed` };
    }
    if (policy.alwaysReviewed.some((glob) => matchesGlob(file, glob))) {
      return { route: 'pr', reason: `${file} is always reviewed` };
    }
  }
  const files = proposal.files.length;
  if (files > policy.maxFiles)
    return { route: 'pr', reason: `${files} files > ${policy.maxFiles}` };
  if (proposal.lines > policy.maxLines) {
    return { route: 'pr', reason: `${proposal.lines} lines > ${policy.maxLines}` };
  }
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return {
    route: 'quick_fix',
    reason: `${plural(files, 'file')}, ${plural(proposal.lines, 'line')}: within ${policy.maxFiles} files and ${policy.maxLines} lines`,
  };
}
