import { createAppAuth } from '@octokit/auth-app';
import { GraphqlResponseError, withCustomRequest } from '@octokit/graphql';
import { exchangeWebFlowCode, refreshToken } from '@octokit/oauth-methods';
import { request as octokitRequest } from '@octokit/request';
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
  prUrl: string | null;
  error: string | null;
}

const repoSchema = z.object({
  id: z.union([z.number(), z.string()]),
  node_id: z.string(),
  full_name: z.string(),
  default_branch: z.string().default('main'),
});
const reposPageSchema = z.object({ repositories: z.array(repoSchema) });
const userSchema = z.object({ login: z.string(), id: z.union([z.number(), z.string()]) });
const installationsSchema = z.object({
  installations: z.array(
    z.object({
      id: z.union([z.number(), z.string()]),
      account: z.object({ login: z.string() }).nullable(),
    }),
  ),
});
const issueSchema = z.object({
  number: z.number(),
  node_id: z.string(),
  html_url: z.string(),
});
const artifactSchema = z.looseObject({
  type: z.string().optional(),
  url: z.string().optional(),
  html_url: z.string().optional(),
  data: z.looseObject({ html_url: z.string().optional(), url: z.string().optional() }).optional(),
});
const taskSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  html_url: z.string().nullish(),
  state: z.string(),
  artifacts: z.array(artifactSchema).nullish(),
  error: z.union([z.string(), z.looseObject({ message: z.string().optional() })]).nullish(),
});
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
        const { data } = await rest('GET /user', { headers: asUser(token) });
        const user = parse(userSchema, data, 'the user');
        return { login: user.login, id: String(user.id) };
      });
    },

    /** Installations of this App the user can reach: proves an installation id is theirs. */
    userInstallations(token: string): Promise<Array<{ id: string; account: string }>> {
      return call('the user installations', async () => {
        const { data } = await rest('GET /user/installations', {
          headers: asUser(token),
          per_page: 100,
        });
        return parse(installationsSchema, data, 'the installations').installations.map((i) => ({
          id: String(i.id),
          account: i.account?.login ?? '',
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
          const batch = parse(reposPageSchema, data, 'the repositories').repositories;
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
        const { data } = await rest('POST /repos/{owner}/{repo}/issues', {
          headers,
          owner: owner!,
          repo: repo!,
          title: issue.title,
          body: issue.body,
        });
        const created = parse(issueSchema, data, 'the new issue');
        return { number: created.number, nodeId: created.node_id, url: created.html_url };
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
        const issues = parse(
          z.array(issueSchema.extend({ body: z.string().nullish() })),
          data,
          'the issues',
        );
        const found = issues.find((issue) => issue.body?.includes(marker));
        return found ? { number: found.number, nodeId: found.node_id, url: found.html_url } : null;
      });
    },

    /** A task this dispatch already started (its prompt carries `marker`), for the same reason. */
    findTaskWithMarker(token: string, fullName: string, marker: string): Promise<AgentTask | null> {
      const [owner, repo] = fullName.split('/');
      return call('looking for the agent task', async () => {
        const { data } = await rest('GET /agents/repos/{owner}/{repo}/tasks', {
          headers: { ...asUser(token), 'x-github-api-version': AGENT_TASKS_API_VERSION },
          owner: owner!,
          repo: repo!,
          per_page: 50,
        });
        const list = Array.isArray(data)
          ? (data as unknown[])
          : (z.looseObject({ tasks: z.array(z.unknown()) }).safeParse(data).data?.tasks ?? []);
        const found = list.find((task) => JSON.stringify(task).includes(marker));
        return found ? agentTask(found) : null;
      });
    },

    startAgentTask(
      token: string,
      fullName: string,
      task: { prompt: string; baseRef: string },
    ): Promise<AgentTask> {
      const [owner, repo] = fullName.split('/');
      return call('starting the agent task', async () => {
        const { data } = await rest('POST /agents/repos/{owner}/{repo}/tasks', {
          headers: { ...asUser(token), 'x-github-api-version': AGENT_TASKS_API_VERSION },
          owner: owner!,
          repo: repo!,
          prompt: task.prompt,
          base_ref: task.baseRef,
          create_pull_request: true,
        });
        return agentTask(data);
      });
    },

    getAgentTask(token: string, fullName: string, taskId: string): Promise<AgentTask> {
      const [owner, repo] = fullName.split('/');
      return call('the agent task', async () => {
        const { data } = await rest('GET /agents/repos/{owner}/{repo}/tasks/{task_id}', {
          headers: { ...asUser(token), 'x-github-api-version': AGENT_TASKS_API_VERSION },
          owner: owner!,
          repo: repo!,
          task_id: taskId,
        });
        return agentTask(data);
      });
    },

    /**
     * The fallback when the task API is unavailable to the account: assign the issue to the
     * coding agent (its bot id from suggestedActors), with the base branch to work from.
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
          await graphqlAs(token)(
            `query ($owner: String!, $name: String!) {
              repository(owner: $owner, name: $name) {
                id
                suggestedActors(capabilities: [CAN_BE_ASSIGNED], first: 100) {
                  nodes { login __typename ... on Bot { id } ... on User { id } }
                }
              }
            }`,
            { owner: owner!, name: name! },
          ),
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
        await graphqlAs(token, { 'graphql-features': 'issues_copilot_assignment_api_support' })(
          `mutation ($input: ReplaceActorsForAssignableInput!) {
            replaceActorsForAssignable(input: $input) {
              assignable { ... on Issue { id number } }
            }
          }`,
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
          await graphqlAs(token)(
            `query ($owner: String!, $name: String!, $number: Int!) {
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
            { owner: owner!, name: name!, number: issueNumber },
          ),
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

function agentTask(data: unknown): AgentTask {
  const task = parse(taskSchema, data, 'the agent task');
  const pull = task.artifacts?.find((artifact) => artifact.type === 'pull');
  const prUrl = pull ? (pull.data?.html_url ?? pull.html_url ?? pull.url ?? pull.data?.url) : null;
  const error = typeof task.error === 'string' ? task.error : (task.error?.message ?? null);
  const url = typeof task.html_url === 'string' ? task.html_url : null;
  return { id: String(task.id), state: task.state, url, prUrl: prUrl ?? null, error };
}
