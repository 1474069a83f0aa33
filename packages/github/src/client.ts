import { createAppAuth } from '@octokit/auth-app';
import { GraphqlResponseError, withCustomRequest } from '@octokit/graphql';
import { exchangeWebFlowCode, refreshToken } from '@octokit/oauth-methods';
import { request as octokitRequest } from '@octokit/request';
import type { components, operations } from '@octokit/openapi-types';
import { RequestError } from '@octokit/request-error';
import { z } from 'zod';
import type { GithubApp } from './config.js';
import { GitHubError } from './errors.js';

/**
 * Every GitHub call Ferry makes, in one place, against the configured API and web base URLs
 * (github.com, GitHub Enterprise Server, or the fake GitHub in tests). Each call has a timeout;
 * failures come out as a GitHubError that says whether trying again can help.
 */

/** REST version for the ordinary endpoints; the agent tasks API asks for its newer one. */
const REST_API_VERSION = '2022-11-28';
const AGENT_TASKS_API_VERSION = '2026-03-10';
/** The coding agent's bot login, as `suggestedActors` lists it. */
export const CODING_AGENT_LOGIN = 'copilot-swe-agent';

export interface UserTokens {
  token: string;
  expiresAt: Date | null;
  refreshToken: string | null;
  refreshTokenExpiresAt: Date | null;
}

export interface InstallationRepo {
  githubId: string;
  nodeId: string;
  fullName: string;
  defaultBranch: string;
}

export interface AgentTask {
  id: string;
  state: string;
  /** The task's page on GitHub, when GitHub gives one. */
  url: string | null;
  /** The GraphQL global id of the pull request the task opened (its `pull` artifact), if any. */
  pullRequestId: string | null;
  /** Why the task failed: GitHub's message on the session that failed. */
  error: string | null;
}

export interface PullRequestRef {
  url: string;
  number: number;
  merged: boolean;
  closed: boolean;
}

/**
 * GitHub's REST shapes, from its OpenAPI description (`@octokit/openapi-types`): no hand-written
 * copies, so reading a field GitHub does not describe fails `tsc`.
 */
type JsonOf<Op> = Op extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer J } } }
    ? J
    : R extends { 201: { content: { 'application/json': infer J } } }
      ? J
      : never
  : never;
export type GitHubTask = JsonOf<operations['agent-tasks/get-task-by-repo-and-id']>;
export type GitHubTaskListItem = JsonOf<
  operations['agent-tasks/list-tasks-for-repo']
>['tasks'][number];
export type GitHubCreatedTask = JsonOf<operations['agent-tasks/create-task-in-repo']>;
export type GitHubInstallation = components['schemas']['installation'];
export type GitHubIssue = components['schemas']['issue'];
export type GitHubRepository = components['schemas']['repository'];
export type GitHubUser = JsonOf<operations['users/get-authenticated']>;

/**
 * The GraphQL documents Ferry sends. Each is checked against GitHub's published schema
 * (`@octokit/graphql-schema`) plus the public-preview fields the coding-agent docs use
 * (packages/github/test/graphql-documents.test.ts).
 */
export const GRAPHQL_DOCUMENTS = {
  assignableActors: `query ($owner: String!, $name: String!) {
    repository(owner: $owner, name: $name) {
      id
      suggestedActors(capabilities: [CAN_BE_ASSIGNED], first: 100) {
        nodes { login __typename ... on Bot { id } ... on User { id } }
      }
    }
  }`,
  assignCodingAgent: `mutation ($input: ReplaceActorsForAssignableInput!) {
    replaceActorsForAssignable(input: $input) {
      assignable { ... on Issue { id number } }
    }
  }`,
  issueTimeline: `query ($owner: String!, $name: String!, $number: Int!) {
    repository(owner: $owner, name: $name) {
      issue(number: $number) {
        timelineItems(itemTypes: [CROSS_REFERENCED_EVENT], last: 20) {
          nodes {
            ... on CrossReferencedEvent { source { __typename ... on PullRequest { url state merged } } }
          }
        }
      }
    }
  }`,
  pullRequest: `query ($id: ID!) {
    node(id: $id) {
      __typename
      ... on PullRequest { url number state merged }
    }
  }`,
} as const;

/**
 * "Using Copilot cloud agent via the API" (docs.github.com/copilot/how-tos/use-copilot-agents/
 * cloud-agent/use-cloud-agent-via-the-api): the assignment mutations need both features.
 */
export const COPILOT_GRAPHQL_FEATURES =
  'issues_copilot_assignment_api_support,coding_agent_model_selection';

/** How far GitHub's clock may be from ours when a lost task is looked for by its creation time. */
const TASK_CLOCK_SKEW_MS = 2 * 60_000;
/** At most this many recent tasks are read in full while looking for a lost one. */
const TASK_CANDIDATES = 10;

const actorsSchema = z.object({
  repository: z
    .object({
      id: z.string(),
      suggestedActors: z.object({
        nodes: z.array(z.looseObject({ login: z.string(), id: z.string().optional() })),
      }),
    })
    .nullable(),
});
const timelineSchema = z.object({
  repository: z
    .object({
      issue: z
        .object({
          timelineItems: z.object({
            nodes: z.array(
              z.looseObject({
                source: z
                  .looseObject({
                    __typename: z.string().optional(),
                    url: z.string().optional(),
                    merged: z.boolean().optional(),
                    state: z.string().optional(),
                  })
                  .nullish(),
              }),
            ),
          }),
        })
        .nullable(),
    })
    .nullable(),
});
const pullRequestNodeSchema = z.object({
  node: z
    .looseObject({
      __typename: z.string().optional(),
      url: z.string().optional(),
      number: z.number().optional(),
      state: z.string().optional(),
      merged: z.boolean().optional(),
    })
    .nullable(),
});

function parse<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const result = schema.safeParse(data);
  if (!result.success) {
    throw new GitHubError('invalid', 0, `GitHub answered ${what} in an unexpected shape.`);
  }
  return result.data;
}

/** Octokit's errors (HTTP status, headers) and network failures, as one GitHubError. */
function toGitHubError(error: unknown, what: string): GitHubError {
  if (error instanceof GitHubError) return error;
  if (error instanceof GraphqlResponseError) {
    const message = error.errors?.map((e) => e.message).join('; ') ?? error.message;
    return new GitHubError('refused', 200, `GitHub refused ${what}: ${message}`);
  }
  if (error instanceof RequestError) {
    return GitHubError.fromResponse(
      error.status,
      error.response?.headers ?? {},
      error.response?.data,
      what,
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new GitHubError('transient', 0, `GitHub could not be reached for ${what} (${reason}).`);
}

export interface GitHubClientOptions {
  /** One HTTP call, connect to last byte. */
  timeoutMs?: number;
}

export type GitHubClient = ReturnType<typeof createGitHubClient>;

export function createGitHubClient(app: GithubApp, options: GitHubClientOptions = {}) {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const timedFetch: typeof fetch = (input, init) =>
    fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const rest = octokitRequest.defaults({
    baseUrl: app.apiUrl,
    headers: { 'user-agent': 'ferry-dispatch', 'x-github-api-version': REST_API_VERSION },
    request: { fetch: timedFetch },
  });
  // The OAuth endpoints live on the web host; oauth-methods derives it from this base URL.
  const web = octokitRequest.defaults({
    baseUrl: app.webUrl,
    headers: { 'user-agent': 'ferry-dispatch' },
    request: { fetch: timedFetch },
  });
  const appAuth = createAppAuth({ appId: app.appId, privateKey: app.privateKey, request: rest });
  const asUser = (token: string) => ({ authorization: `Bearer ${token}` });

  async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toGitHubError(error, what);
    }
  }

  async function installationHeaders(installationId: string) {
    const auth = await call('an installation token', () =>
      appAuth({ type: 'installation', installationId: Number(installationId) }),
    );
    return { authorization: `Bearer ${auth.token}` };
  }

  function userTokens(authentication: {
    token: string;
    expiresAt?: string;
    refreshToken?: string;
    refreshTokenExpiresAt?: string;
  }): UserTokens {
    return {
      token: authentication.token,
      expiresAt: authentication.expiresAt ? new Date(authentication.expiresAt) : null,
      refreshToken: authentication.refreshToken ?? null,
      refreshTokenExpiresAt: authentication.refreshTokenExpiresAt
        ? new Date(authentication.refreshTokenExpiresAt)
        : null,
    };
  }

  const graphqlAs = (token: string, extraHeaders: Record<string, string> = {}) =>
    withCustomRequest(rest).defaults({ headers: { ...asUser(token), ...extraHeaders } });

  return {
    app,

    /** Where an admin installs the App; GitHub comes back to the Setup URL with our state. */
    installUrl(state: string): string {
      return `${app.webUrl}/apps/${encodeURIComponent(app.slug)}/installations/new?state=${encodeURIComponent(state)}`;
    },

    /** The OAuth web flow's first step; GitHub comes back to the Callback URL with code and state. */
    authorizeUrl(state: string, redirectUri: string): string {
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: redirectUri,
        state,
      });
      return `${app.webUrl}/login/oauth/authorize?${query.toString()}`;
    },

    exchangeCode(code: string, redirectUri: string): Promise<UserTokens> {
      return call('the authorization code', async () => {
        const { authentication } = await exchangeWebFlowCode({
          clientType: 'github-app',
          clientId: app.clientId,
          clientSecret: app.clientSecret,
          code,
          redirectUrl: redirectUri,
          request: web,
        });
        return userTokens(authentication);
      });
    },

    /** GitHub makes the refresh token single use: the caller stores the new pair at once. */
    refreshUserToken(refresh: string): Promise<UserTokens> {
      return call('a token refresh', async () => {
        const { authentication } = await refreshToken({
          clientType: 'github-app',
          clientId: app.clientId,
          clientSecret: app.clientSecret,
          refreshToken: refresh,
          request: web,
        });
        return userTokens(authentication);
      });
    },

    getUser(token: string): Promise<{ login: string; id: string }> {
      return call('the signed-in user', async () => {
        const { data }: { data: GitHubUser } = await rest('GET /user', { headers: asUser(token) });
        if (typeof data?.login !== 'string') throw unexpected('the user');
        return { login: data.login, id: String(data.id) };
      });
    },

    /**
     * Installations of this App the user can reach: proves an installation id is theirs. An
     * installation's account is a user or organization (`login`) or an enterprise (`slug`, no
     * login); null when GitHub shows none.
     */
    userInstallations(token: string): Promise<Array<{ id: string; account: string }>> {
      return call('the user installations', async () => {
        const { data } = await rest('GET /user/installations', {
          headers: asUser(token),
          per_page: 100,
        });
        if (!Array.isArray(data?.installations)) throw unexpected('the installations');
        return data.installations.map((i: GitHubInstallation) => ({
          id: String(i.id),
          account: accountName(i.account),
        }));
      });
    },

    installationRepos(installationId: string): Promise<InstallationRepo[]> {
      return call('the installation repositories', async () => {
        const headers = await installationHeaders(installationId);
        const repos: InstallationRepo[] = [];
        for (let page = 1; page <= 50; page++) {
          const { data } = await rest('GET /installation/repositories', {
            headers,
            per_page: 100,
            page,
          });
          if (!Array.isArray(data?.repositories)) throw unexpected('the repositories');
          const batch: GitHubRepository[] = data.repositories;
          for (const r of batch) {
            repos.push({
              githubId: String(r.id),
              nodeId: r.node_id,
              fullName: r.full_name,
              defaultBranch: r.default_branch,
            });
          }
          if (batch.length < 100) break;
        }
        return repos;
      });
    },

    createIssue(
      installationId: string,
      fullName: string,
      issue: { title: string; body: string },
    ): Promise<{ number: number; nodeId: string; url: string }> {
      const [owner, repo] = fullName.split('/');
      return call('opening the issue', async () => {
        const headers = await installationHeaders(installationId);
        const { data }: { data: GitHubIssue } = await rest('POST /repos/{owner}/{repo}/issues', {
          headers,
          owner: owner!,
          repo: repo!,
          title: issue.title,
          body: issue.body,
        });
        if (typeof data?.number !== 'number') throw unexpected('the new issue');
        return { number: data.number, nodeId: data.node_id, url: data.html_url };
      });
    },

    /**
     * An issue this dispatch already opened (its body carries `marker`), for a re-run that cannot
     * tell whether its earlier request reached GitHub. Newest first; the dispatch is recent.
     */
    findIssueWithMarker(
      installationId: string,
      fullName: string,
      marker: string,
    ): Promise<{ number: number; nodeId: string; url: string } | null> {
      const [owner, repo] = fullName.split('/');
      return call('looking for the issue', async () => {
        const headers = await installationHeaders(installationId);
        const { data } = await rest('GET /repos/{owner}/{repo}/issues', {
          headers,
          owner: owner!,
          repo: repo!,
          state: 'all',
          sort: 'created',
          direction: 'desc',
          per_page: 50,
        });
        if (!Array.isArray(data)) throw unexpected('the issues');
        const issues: GitHubIssue[] = data;
        const found = issues.find((issue) => issue.body?.includes(marker));
        return found ? { number: found.number, nodeId: found.node_id, url: found.html_url } : null;
      });
    },

    /**
     * A task this dispatch already started, for a re-run whose start request may have reached
     * GitHub without its answer reaching us. GitHub's list shows no prompt (its `name` is only
     * derived from one), so: the tasks created since the request went out (less some clock
     * skew), each read in full, where a session's prompt carries `marker`. When GitHub shows no
     * session prompt at all, the one such task on `baseRef` whose name names the issue is taken.
     */
    findStartedTask(
      token: string,
      fullName: string,
      lost: { marker: string; requestedAt: Date; baseRef: string; issueNumber: number },
    ): Promise<AgentTask | null> {
      const [owner, repo] = fullName.split('/');
      const headers = { ...asUser(token), 'x-github-api-version': AGENT_TASKS_API_VERSION };
      const since = lost.requestedAt.getTime() - TASK_CLOCK_SKEW_MS;
      return call('looking for the agent task', async () => {
        const { data } = await rest('GET /agents/repos/{owner}/{repo}/tasks', {
          headers,
          owner: owner!,
          repo: repo!,
          sort: 'created_at',
          direction: 'desc',
          since: new Date(since).toISOString(),
          per_page: 50,
        });
        if (!Array.isArray(data?.tasks)) throw unexpected('the agent tasks');
        const listed: GitHubTaskListItem[] = data.tasks;
        const candidates = listed
          .filter((task) => Date.parse(task.created_at) >= since)
          .slice(0, TASK_CANDIDATES);
        const unnamed: GitHubTask[] = [];
        for (const candidate of candidates) {
          const { data: full }: { data: GitHubTask } = await rest(
            'GET /agents/repos/{owner}/{repo}/tasks/{task_id}',
            { headers, owner: owner!, repo: repo!, task_id: candidate.id },
          );
          const sessions = full.sessions ?? [];
          if (sessions.some((session) => session.prompt?.includes(lost.marker))) {
            return agentTask(full);
          }
          const noPrompt = sessions.every((session) => session.prompt === undefined);
          const sameBase = sessions.some((session) => session.base_ref === lost.baseRef);
          const namesIssue = new RegExp(`#${lost.issueNumber}(?!\\d)`).test(full.name ?? '');
          if (noPrompt && sameBase && namesIssue) unnamed.push(full);
        }
        return unnamed.length === 1 ? agentTask(unnamed[0]!) : null;
      });
    },

    startAgentTask(
      token: string,
      fullName: string,
      task: { prompt: string; baseRef: string },
    ): Promise<AgentTask> {
      const [owner, repo] = fullName.split('/');
      return call('starting the agent task', async () => {
        const { data }: { data: GitHubCreatedTask } = await rest(
          'POST /agents/repos/{owner}/{repo}/tasks',
          {
            headers: { ...asUser(token), 'x-github-api-version': AGENT_TASKS_API_VERSION },
            owner: owner!,
            repo: repo!,
            prompt: task.prompt,
            base_ref: task.baseRef,
            create_pull_request: true,
          },
        );
        return agentTask(data);
      });
    },

    getAgentTask(token: string, fullName: string, taskId: string): Promise<AgentTask> {
      const [owner, repo] = fullName.split('/');
      return call('the agent task', async () => {
        const { data }: { data: GitHubTask } = await rest(
          'GET /agents/repos/{owner}/{repo}/tasks/{task_id}',
          {
            headers: { ...asUser(token), 'x-github-api-version': AGENT_TASKS_API_VERSION },
            owner: owner!,
            repo: repo!,
            task_id: taskId,
          },
        );
        return agentTask(data);
      });
    },

    /**
     * The pull request behind a task's pull artifact, by its GraphQL global id (the artifact
     * carries no URL). Null when GitHub does not resolve it to a pull request (yet).
     */
    pullRequest(token: string, globalId: string): Promise<PullRequestRef | null> {
      return call('the pull request', async () => {
        let answer: unknown;
        try {
          answer = await graphqlAs(token)(GRAPHQL_DOCUMENTS.pullRequest, { id: globalId });
        } catch (error) {
          // GitHub answers an id it cannot resolve (or not for this user) with NOT_FOUND.
          const notFound =
            error instanceof GraphqlResponseError &&
            error.errors?.every((e) => (e as { type?: string }).type === 'NOT_FOUND');
          if (notFound) return null;
          throw error;
        }
        const found = parse(pullRequestNodeSchema, answer, 'the pull request');
        const pull = found.node;
        if (pull?.__typename !== 'PullRequest' || !pull.url) return null;
        return {
          url: pull.url,
          number: pull.number ?? 0,
          merged: pull.merged === true || pull.state === 'MERGED',
          closed: pull.state === 'CLOSED',
        };
      });
    },

    /**
     * The fallback when the task API is unavailable to the account: assign the issue to the
     * coding agent (its bot id from suggestedActors), with the base branch to work from. Of the
     * two paths the coding-agent docs give, the GraphQL one: it tells first whether the agent can
     * be assigned at all, and the REST one's `agent_assignment` (POST .../issues/{n}/assignees)
     * is not in GitHub's published description yet, so nothing could check what we send there
     * (packages/testing's conformance test fails when it appears).
     */
    assignCodingAgent(
      token: string,
      fullName: string,
      issue: { nodeId: string; baseRef: string },
    ): Promise<void> {
      const [owner, name] = fullName.split('/');
      return call('assigning the coding agent', async () => {
        const found = parse(
          actorsSchema,
          await graphqlAs(token)(GRAPHQL_DOCUMENTS.assignableActors, {
            owner: owner!,
            name: name!,
          }),
          'the assignable actors',
        );
        const bot = found.repository?.suggestedActors.nodes.find(
          (actor) => actor.login === CODING_AGENT_LOGIN,
        );
        if (!found.repository || !bot?.id) {
          throw new GitHubError(
            'refused',
            200,
            `The coding agent cannot be assigned in ${fullName}: it is not enabled for this repository or account.`,
          );
        }
        await graphqlAs(token, { 'graphql-features': COPILOT_GRAPHQL_FEATURES })(
          GRAPHQL_DOCUMENTS.assignCodingAgent,
          {
            input: {
              assignableId: issue.nodeId,
              actorIds: [bot.id],
              agentAssignment: { targetRepositoryId: found.repository.id, baseRef: issue.baseRef },
            },
          },
        );
      });
    },

    /** After an assignment: the pull request the coding agent opened for the issue, if any. */
    assignedIssuePullRequest(
      token: string,
      fullName: string,
      issueNumber: number,
    ): Promise<{ url: string; merged: boolean; closed: boolean } | null> {
      const [owner, name] = fullName.split('/');
      return call('the issue timeline', async () => {
        const found = parse(
          timelineSchema,
          await graphqlAs(token)(GRAPHQL_DOCUMENTS.issueTimeline, {
            owner: owner!,
            name: name!,
            number: issueNumber,
          }),
          'the issue timeline',
        );
        const pull = found.repository?.issue?.timelineItems.nodes
          .map((node) => node.source)
          .find((source) => source?.__typename === 'PullRequest' && source.url);
        if (!pull?.url) return null;
        return { url: pull.url, merged: pull.merged === true, closed: pull.state === 'CLOSED' };
      });
    },
  };
}

function unexpected(what: string): GitHubError {
  return new GitHubError('invalid', 0, `GitHub answered ${what} in an unexpected shape.`);
}

/** An installation's account by name: a user's or organization's login, an enterprise's slug. */
function accountName(account: GitHubInstallation['account']): string {
  if (!account) return '';
  return 'login' in account ? account.login : account.slug;
}

/**
 * A task as the flow needs it. GitHub's description: a failure's reason is on the session that
 * failed (`sessions[].error.message`), and the pull artifact's data is `{id, global_id}`.
 */
function agentTask(task: GitHubTask | GitHubCreatedTask): AgentTask {
  if (typeof task?.id !== 'string' || typeof task.state !== 'string') {
    throw unexpected('the agent task');
  }
  const pull = task.artifacts?.find((artifact) => artifact.type === 'pull');
  const pullRequestId = pull && 'global_id' in pull.data ? (pull.data.global_id ?? null) : null;
  const sessions = 'sessions' in task ? (task.sessions ?? []) : [];
  const failed = [...sessions].reverse().find((session) => session.error?.message);
  return {
    id: task.id,
    state: task.state,
    url: task.html_url ?? null,
    pullRequestId,
    error: failed?.error?.message ?? null,
  };
}
