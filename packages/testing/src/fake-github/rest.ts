import crypto from 'node:crypto';
import { refuse, stringField, validationFailed, type Reply } from './http.js';
import * as shapes from './shapes.js';
import type { FakeState, TaskState } from './state.js';
import type { FakeIssue, RecordedRequest } from './types.js';

/**
 * The REST endpoints the fake serves, keyed as GitHub's OpenAPI description keys its operations
 * (`METHOD /path/{template}`). The server checks each request against its operation before the
 * handler runs and each answer after (openapi.ts), so a handler only does what GitHub would.
 */

export type RestHandler = (request: RecordedRequest, params: Record<string, string>) => Reply;

export function restRoutes(state: FakeState): Record<string, RestHandler> {
  return {
    'POST /app/installations/{installation_id}/access_tokens': (request, params) => {
      const jwt = request.headers.authorization?.replace(/^(bearer|token)\s+/i, '') ?? '';
      if (!jwt || !state.verifyAppJwt(jwt)) refuse(401, 'A JSON web token could not be decoded');
      const installationId = Number(params.installation_id);
      if (!state.installations.has(installationId)) refuse(404, 'Not Found');
      const { token, expiresAt } = state.createInstallationToken(installationId);
      return { status: 201, json: shapes.installationToken(token, expiresAt) };
    },

    'GET /installation/repositories': (request) => {
      const installation = state.requireInstallation(request);
      const owner =
        installation.account.kind === 'user'
          ? installation.account.user
          : installation.account.enterprise;
      const { items, headers } = paginate(state, installation.repos, request);
      return {
        status: 200,
        headers,
        json: {
          total_count: installation.repos.length,
          repositories: items.map((repo) => shapes.repository(state, repo, owner)),
          repository_selection: 'selected',
        },
      };
    },

    'GET /user': (request) => {
      const user = state.requireUser(request);
      return { status: 200, json: shapes.privateUser(state, user) };
    },

    'GET /user/installations': (request) => {
      const user = state.requireUser(request);
      const visible = [...state.installations.values()].filter((i) => i.users.has(user.login));
      const { items, headers } = paginate(state, visible, request);
      return {
        status: 200,
        headers,
        json: {
          total_count: visible.length,
          installations: items.map((installation) => shapes.installation(state, installation)),
        },
      };
    },

    'POST /repos/{owner}/{repo}/issues': (request, params) => {
      const caller = state.authenticate(request);
      const entry = state.reposByName.get(`${params.owner}/${params.repo}`.toLowerCase());
      // Only the App's installation that holds the repo may write to it here.
      if (caller.kind !== 'installation' || !entry || entry.installation !== caller.installation) {
        refuse(404, 'Not Found');
      }
      const title = stringField(request.body, 'title');
      if (!title) {
        return validationFailed([{ resource: 'Issue', field: 'title', code: 'missing_field' }]);
      }
      const { repo } = entry;
      const number = state.takeNumber(repo.fullName);
      const id = state.nextIssueId++;
      const issue: FakeIssue = {
        id,
        nodeId: `I_${Buffer.from(`fake:${id}`).toString('base64url')}`,
        number,
        htmlUrl: `${state.webUrl}/${repo.fullName}/issues/${number}`,
        title,
        body: stringField(request.body, 'body') ?? '',
        repoFullName: repo.fullName,
        assignees: [],
      };
      // Opened with the installation token: GitHub shows the App's bot as the author.
      const creator = state.addUser(`${state.slug}[bot]`);
      const created = { issue, createdAt: new Date().toISOString(), creator };
      state.issueStates.push(created);
      return { status: 201, json: shapes.issue(state, created) };
    },

    /** The repo's issues, newest first (what a re-run searches for its marker). */
    'GET /repos/{owner}/{repo}/issues': (request, params) => {
      const caller = state.authenticate(request);
      const repo = state.repoVisibleToCaller(caller, `${params.owner}/${params.repo}`);
      if (!repo) refuse(404, 'Not Found');
      const all = state.issueStates
        .filter(({ issue }) => issue.repoFullName === repo.fullName)
        .reverse()
        .map((found) => shapes.issue(state, found));
      const { items, headers } = paginate(state, all, request);
      return { status: 200, json: items, headers };
    },

    'POST /agents/repos/{owner}/{repo}/tasks': (request, params) => {
      const user = state.requireUser(request);
      const repo = state.repoVisibleTo(user, `${params.owner}/${params.repo}`);
      if (!repo) refuse(404, 'Not Found');
      const refusedWith = state.refusedAgentUsers.get(user.login.toLowerCase());
      if (refusedWith) refuse(refusedWith, 'Agent tasks are not available for this account');
      if (!stringField(request.body, 'prompt')) {
        return validationFailed([{ code: 'missing_field', message: 'prompt is required' }]);
      }
      const now = new Date().toISOString();
      const task: TaskState = {
        id: crypto.randomUUID(),
        repoFullName: repo.fullName,
        login: user.login,
        body: request.body,
        steps: [...state.taskSteps],
        stepIndex: 0,
        createdAt: now,
        updatedAt: now,
      };
      state.taskStates.set(task.id, task);
      advance(state, task, false);
      return { status: 201, json: shapes.taskListItem(state, task) };
    },

    /** The user's tasks in the repo, newest first: no prompt, no sessions (GitHub lists none). */
    'GET /agents/repos/{owner}/{repo}/tasks': (request, params) => {
      const user = state.requireUser(request);
      const repo = state.repoVisibleTo(user, `${params.owner}/${params.repo}`);
      if (!repo) refuse(404, 'Not Found');
      const since = request.query.since ? Date.parse(request.query.since) : undefined;
      const mine = [...state.taskStates.values()]
        .filter((task) => task.repoFullName === repo.fullName && task.login === user.login)
        .filter((task) => since === undefined || Date.parse(task.updatedAt) >= since);
      const sortBy = request.query.sort === 'created_at' ? 'createdAt' : 'updatedAt';
      const ascending = request.query.direction === 'asc';
      mine.sort((a, b) => {
        const order = a[sortBy].localeCompare(b[sortBy]);
        return ascending ? order : -order;
      });
      const { items, headers } = paginate(state, mine, request);
      return {
        status: 200,
        headers,
        json: {
          tasks: items.map((task) => shapes.taskListItem(state, task)),
          total_active_count: mine.length,
          total_archived_count: 0,
        },
      };
    },

    'GET /agents/repos/{owner}/{repo}/tasks/{task_id}': (request, params) => {
      const user = state.requireUser(request);
      const task = state.taskStates.get(params.task_id ?? '');
      const repo = state.repoVisibleTo(user, `${params.owner}/${params.repo}`);
      if (!task || !repo || task.repoFullName !== repo.fullName) refuse(404, 'Not Found');
      advance(state, task, true);
      return { status: 200, json: shapes.task(state, task) };
    },
  };
}

/**
 * The task moves one scripted step per read (and stays on the last); the pull request opens the
 * first time a step has one.
 */
function advance(state: FakeState, task: TaskState, step: boolean): void {
  if (step && task.stepIndex < task.steps.length - 1) {
    task.stepIndex += 1;
    task.updatedAt = new Date(Math.max(Date.now(), Date.parse(task.updatedAt) + 1)).toISOString();
  }
  const current = task.steps[task.stepIndex];
  const hasPr = typeof current === 'object' && current.pr === true;
  if (hasPr && !task.pr) task.pr = state.openPullRequest(task.repoFullName);
}

/** GitHub's page/per_page (default 30, max 100) with a `link` header naming the next page. */
function paginate<T>(
  state: FakeState,
  all: T[],
  request: RecordedRequest,
): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(request.query.per_page) || 30));
  const page = Math.max(1, Math.floor(Number(request.query.page) || 1));
  const items = all.slice((page - 1) * perPage, page * perPage);
  const last = Math.max(1, Math.ceil(all.length / perPage));
  if (page >= last) return { items, headers: {} };
  const pageUrl = (n: number): string =>
    `<${state.apiUrl}${request.path}?per_page=${perPage}&page=${n}>`;
  return {
    items,
    headers: { link: `${pageUrl(page + 1)}; rel="next", ${pageUrl(last)}; rel="last"` },
  };
}
