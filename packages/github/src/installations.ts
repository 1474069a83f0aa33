import { isId, newId } from '@ferry/core';
import type { Db, GithubInstallation, GithubRepo } from '@ferry/db';
import type { GitHubClient } from './client.js';
import { z } from 'zod';

/**
 * The workspace's GitHub App installation and the repositories it reaches. An installation id
 * arriving in a redirect can be forged, so callers record one only after the admin's own user
 * token lists it (`GET /user/installations`).
 */

export function findInstallation(
  db: Db,
  workspaceId: string,
): Promise<GithubInstallation | undefined> {
  return db
    .selectFrom('github_installations')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/** One installation per workspace: connecting again replaces it (its repos are re-synced). */
export async function recordInstallation(
  db: Db,
  input: { workspaceId: string; installationId: string; accountLogin: string; memberId: string },
): Promise<GithubInstallation> {
  return db
    .insertInto('github_installations')
    .values({
      id: newId('githubInstallation'),
      workspace_id: input.workspaceId,
      installation_id: input.installationId,
      account_login: input.accountLogin,
      connected_by: input.memberId,
    })
    .onConflict((oc) =>
      oc.column('workspace_id').doUpdateSet({
        installation_id: input.installationId,
        account_login: input.accountLogin,
        connected_by: input.memberId,
        repos_synced_at: null,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Reads the installation's repositories from GitHub and upserts them: new ones arrive unlinked
 * and disabled; ones GitHub no longer lists become unreachable (kept, so past dispatches keep
 * their repo). Linked/enabled choices survive a sync.
 */
export async function syncRepos(
  db: Db,
  client: GitHubClient,
  installation: Pick<GithubInstallation, 'workspace_id' | 'installation_id'>,
): Promise<GithubRepo[]> {
  const found = await client.installationRepos(installation.installation_id);
  const workspaceId = installation.workspace_id;
  await db.transaction().execute(async (trx) => {
    for (const repo of found) {
      await trx
        .insertInto('github_repos')
        .values({
          id: newId('githubRepo'),
          workspace_id: workspaceId,
          github_id: repo.githubId,
          node_id: repo.nodeId,
          full_name: repo.fullName,
          default_branch: repo.defaultBranch,
          reachable: true,
        })
        .onConflict((oc) =>
          oc.columns(['workspace_id', 'github_id']).doUpdateSet({
            node_id: repo.nodeId,
            full_name: repo.fullName,
            default_branch: repo.defaultBranch,
            reachable: true,
            updated_at: new Date(),
          }),
        )
        .execute();
    }
    let gone = trx
      .updateTable('github_repos')
      .set({ reachable: false, updated_at: new Date() })
      .where('workspace_id', '=', workspaceId)
      .where('reachable', '=', true);
    if (found.length) {
      gone = gone.where(
        'github_id',
        'not in',
        found.map((r) => r.githubId),
      );
    }
    await gone.execute();
    await trx
      .updateTable('github_installations')
      .set({ repos_synced_at: new Date() })
      .where('workspace_id', '=', workspaceId)
      .execute();
  });
  return listRepos(db, workspaceId);
}

export function listRepos(db: Db, workspaceId: string): Promise<GithubRepo[]> {
  return db
    .selectFrom('github_repos')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('full_name')
    .execute();
}

export async function findRepo(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<GithubRepo | undefined> {
  if (!isId(id, 'githubRepo')) return undefined;
  return db
    .selectFrom('github_repos')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/** Link and Enable switches; enabling implies linking, unlinking implies disabling. */
export async function setRepoSwitches(
  db: Db,
  workspaceId: string,
  id: string,
  switches: { linked?: boolean; enabled?: boolean },
): Promise<GithubRepo | undefined> {
  const repo = await findRepo(db, workspaceId, id);
  if (!repo) return undefined;
  let linked = switches.linked ?? repo.linked;
  let enabled = switches.enabled ?? repo.enabled;
  if (switches.enabled === true) linked = true;
  if (!linked) enabled = false;
  return db
    .updateTable('github_repos')
    .set({ linked, enabled, updated_at: new Date() })
    .where('id', '=', repo.id)
    .returningAll()
    .executeTakeFirst();
}

/** Linked, enabled, and the installation reaches it (DESIGN.md). */
export function dispatchReady(repo: Pick<GithubRepo, 'linked' | 'enabled' | 'reachable'>): boolean {
  return repo.linked && repo.enabled && repo.reachable;
}

/** A repository as GET /api/v1/repos lists it (issue 46: the schema is the type and the doc). */
export const repoJsonSchema = z.object({
  id: z.string().meta({
    description: 'What a dispatch names as `repo`.',
    example: 'rep_01m95vcs448p8d8nkpkmbpan9e',
  }),
  full_name: z.string().meta({ example: 'acme/shop' }),
  default_branch: z.string().meta({ example: 'main' }),
  linked: z.boolean(),
  enabled: z.boolean(),
  dispatch_ready: z.boolean().meta({
    description:
      'Linked, enabled and reached by the GitHub App installation: check it before dispatching.',
  }),
});
export type RepoJson = z.infer<typeof repoJsonSchema>;

export function repoJson(repo: GithubRepo): RepoJson {
  return {
    id: repo.id,
    full_name: repo.full_name,
    default_branch: repo.default_branch,
    linked: repo.linked,
    enabled: repo.enabled,
    dispatch_ready: dispatchReady(repo),
  };
}
