import type { components, operations } from '@octokit/openapi-types';
import type { FakeState, Installation, IssueState, PullRequest, TaskState } from './state.js';
import { stepOf } from './state.js';
import type { FakeEnterprise, FakeGitHubUser, FakeRepo } from './types.js';

/**
 * The fake's answers in GitHub's own shapes: each renderer returns the type `@octokit/openapi-types`
 * generates from GitHub's description (so `tsc` catches a missing or unknown field), and the REST
 * surface checks every answer against the description itself at run time (openapi.ts).
 */

type Schemas = components['schemas'];
export type TaskJson =
  operations['agent-tasks/get-task-by-repo-and-id']['responses'][200]['content']['application/json'];
export type TaskListItemJson =
  operations['agent-tasks/list-tasks-for-repo']['responses'][200]['content']['application/json']['tasks'][number];

export function simpleUser(state: FakeState, user: FakeGitHubUser): Schemas['simple-user'] {
  const login = encodeURIComponent(user.login);
  const url = `${state.apiUrl}/users/${login}`;
  return {
    login: user.login,
    id: user.id,
    node_id: user.nodeId,
    avatar_url: `${state.webUrl}/avatars/u/${user.id}`,
    gravatar_id: '',
    url,
    html_url: `${state.webUrl}/${login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: user.login.endsWith('[bot]') ? 'Bot' : 'User',
    site_admin: false,
  };
}

/** GET /user for a user token: the private profile. */
export function privateUser(state: FakeState, user: FakeGitHubUser): Schemas['private-user'] {
  return {
    ...simpleUser(state, user),
    name: user.login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: state.createdAt,
    updated_at: state.createdAt,
    private_gists: 0,
    total_private_repos: 0,
    owned_private_repos: 0,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
  };
}

export function enterprise(state: FakeState, account: FakeEnterprise): Schemas['enterprise'] {
  return {
    id: account.id,
    node_id: account.nodeId,
    name: account.name,
    slug: account.slug,
    html_url: `${state.webUrl}/enterprises/${account.slug}`,
    avatar_url: `${state.webUrl}/avatars/e/${account.id}`,
    created_at: state.createdAt,
    updated_at: state.createdAt,
  };
}

const APP_PERMISSIONS = {
  issues: 'write',
  metadata: 'read',
  pull_requests: 'read',
} as const satisfies Schemas['app-permissions'];

export function installation(state: FakeState, found: Installation): Schemas['installation'] {
  const account =
    found.account.kind === 'user'
      ? simpleUser(state, found.account.user)
      : enterprise(state, found.account.enterprise);
  return {
    id: found.id,
    account,
    repository_selection: 'selected',
    access_tokens_url: `${state.apiUrl}/app/installations/${found.id}/access_tokens`,
    repositories_url: `${state.apiUrl}/installation/repositories`,
    html_url: `${state.webUrl}/settings/installations/${found.id}`,
    app_id: Number(state.appId),
    app_slug: state.slug,
    target_id: found.account.kind === 'user' ? found.account.user.id : found.account.enterprise.id,
    target_type: found.account.kind === 'user' ? 'User' : 'Enterprise',
    permissions: APP_PERMISSIONS,
    events: ['issues'],
    created_at: found.createdAt,
    updated_at: found.createdAt,
    single_file_name: null,
    suspended_by: null,
    suspended_at: null,
  };
}

export function installationToken(token: string, expiresAt: number): Schemas['installation-token'] {
  return {
    token,
    expires_at: new Date(expiresAt).toISOString(),
    permissions: APP_PERMISSIONS,
    repository_selection: 'selected',
  };
}

export function repository(
  state: FakeState,
  repo: FakeRepo,
  owner: FakeGitHubUser | FakeEnterprise,
): Schemas['repository'] {
  const url = `${state.apiUrl}/repos/${repo.fullName}`;
  const ownerUser: FakeGitHubUser =
    'login' in owner ? owner : { login: owner.slug, id: owner.id, nodeId: owner.nodeId };
  const host = new URL(state.webUrl).host;
  return {
    id: repo.id,
    node_id: repo.nodeId,
    name: repo.name,
    full_name: repo.fullName,
    license: null,
    forks: 0,
    owner: simpleUser(state, ownerUser),
    private: repo.private,
    html_url: `${state.webUrl}/${repo.fullName}`,
    description: null,
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_url: `git://${host}/${repo.fullName}.git`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    ssh_url: `git@${host}:${repo.fullName}.git`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    clone_url: `${state.webUrl}/${repo.fullName}.git`,
    mirror_url: null,
    hooks_url: `${url}/hooks`,
    svn_url: `${state.webUrl}/${repo.fullName}`,
    homepage: null,
    language: null,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: 0,
    default_branch: repo.defaultBranch,
    open_issues_count: 0,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: false,
    archived: false,
    disabled: false,
    visibility: repo.private ? 'private' : 'public',
    pushed_at: state.createdAt,
    created_at: state.createdAt,
    updated_at: state.createdAt,
    open_issues: 0,
    watchers: 0,
  };
}

export function issue(state: FakeState, found: IssueState): Schemas['issue'] {
  const { issue: data } = found;
  const repoUrl = `${state.apiUrl}/repos/${data.repoFullName}`;
  const url = `${repoUrl}/issues/${data.number}`;
  const assignees = data.assignees
    .map((login) => state.userByLogin(login))
    .filter((user): user is FakeGitHubUser => user !== undefined)
    .map((user) => simpleUser(state, user));
  return {
    id: data.id,
    node_id: data.nodeId,
    url,
    repository_url: repoUrl,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: data.htmlUrl,
    number: data.number,
    state: 'open',
    title: data.title,
    body: data.body,
    user: simpleUser(state, found.creator),
    labels: [],
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    locked: false,
    comments: 0,
    closed_at: null,
    created_at: found.createdAt,
    updated_at: found.createdAt,
    author_association: 'NONE',
  };
}

/** The pull artifact as GitHub's description has it: the PR's REST id and its GraphQL id. */
function artifacts(task: TaskState): NonNullable<TaskJson['artifacts']> {
  if (!task.pr) return [];
  return [
    { provider: 'github', type: 'pull', data: { id: task.pr.id, global_id: task.pr.nodeId } },
  ];
}

/** A task as the list shows it: no prompt, no sessions; `name` is derived from the prompt. */
export function taskListItem(state: FakeState, task: TaskState): TaskListItemJson {
  const step = stepOf(task.steps[task.stepIndex] ?? 'queued');
  const creator = state.userByLogin(task.login);
  const repo = state.reposByName.get(task.repoFullName.toLowerCase());
  return {
    id: task.id,
    url: `${state.apiUrl}/agents/repos/${task.repoFullName}/tasks/${task.id}`,
    html_url: `${state.webUrl}/${task.repoFullName}/copilot/tasks/${task.id}`,
    name: taskName(task),
    creator: { id: creator?.id ?? 0 },
    creator_type: 'user',
    ...(repo ? { repository: { id: repo.repo.id } } : {}),
    state: step.state as TaskJson['state'],
    session_count: 1,
    artifacts: artifacts(task),
    archived_at: null,
    updated_at: task.updatedAt,
    created_at: task.createdAt,
  };
}

/** One task in full: its sessions carry the prompt, the base ref and a failure's reason. */
export function task(state: FakeState, found: TaskState): TaskJson {
  const step = stepOf(found.steps[found.stepIndex] ?? 'queued');
  const creator = state.userByLogin(found.login);
  const body = (found.body ?? {}) as { prompt?: string; base_ref?: string };
  const finished = ['completed', 'failed', 'timed_out', 'cancelled'].includes(step.state);
  return {
    ...taskListItem(state, found),
    sessions: [
      {
        id: `${found.id}-s1`,
        name: taskName(found),
        ...(creator ? { user: { id: creator.id } } : {}),
        task_id: found.id,
        state: step.state as TaskJson['state'],
        created_at: found.createdAt,
        updated_at: found.updatedAt,
        ...(finished ? { completed_at: found.updatedAt } : {}),
        ...(body.prompt === undefined || !state.sessionPrompts ? {} : { prompt: body.prompt }),
        ...(body.base_ref === undefined ? {} : { base_ref: body.base_ref }),
        ...(step.error === undefined ? {} : { error: { message: step.error } }),
      },
    ],
  };
}

/** GitHub derives a short name from the prompt; the fake takes its first line, shortened. */
function taskName(task: TaskState): string {
  const prompt = (task.body as { prompt?: unknown } | undefined)?.prompt;
  const first = typeof prompt === 'string' ? (prompt.split('\n')[0] ?? '') : '';
  return first.length > 60 ? `${first.slice(0, 57)}...` : first;
}

export type { PullRequest };
