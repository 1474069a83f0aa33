import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { URL } from 'node:url';
import { answerGraphql } from './graphql.js';
import {
  flatHeaders,
  lowerCaseKeys,
  matches,
  notFound,
  parseBody,
  Refusal,
  send,
  validationFailed,
  type Reply,
} from './http.js';
import { OpenApi, type Operation } from './openapi.js';
import { restRoutes, type RestHandler } from './rest.js';
import { FakeState, stepOf } from './state.js';
import type {
  FailRule,
  FakeAssignmentStep,
  FakeGitHubOptions,
  FakeInstallationOptions,
  FakeIssue,
  FakeRepo,
  FakeTaskRecord,
  FakeTaskStep,
  FakeGitHubUser,
  HangRule,
  RecordedRequest,
} from './types.js';
import { webRoutes, type WebHandler } from './web.js';

export { WEB_FLOW_DOCS } from './web.js';

export { COPILOT_BOT } from './types.js';
export type {
  FailRule,
  FakeAssignmentStep,
  FakeEnterprise,
  FakeGitHubOptions,
  FakeGitHubUser,
  FakeInstallationOptions,
  FakeIssue,
  FakeRepo,
  FakeTaskRecord,
  FakeTaskStep,
  HangRule,
  RecordedRequest,
} from './types.js';
export { verifyAppJwt } from './state.js';
export { OpenApi } from './openapi.js';
export { COPILOT_ASSIGNMENT_FEATURES, GITHUB_SDL, PREVIEW_DOCS, PREVIEW_SDL } from './graphql.js';

/**
 * A fake GitHub on a real loopback HTTP server: the App's REST endpoints, the Copilot agent-task
 * API, the GraphQL operations Ferry sends, and the OAuth/App-install browser flows. Clients talk
 * real HTTP to it, so base URLs, auth headers and retries are exercised as they would be against
 * github.com or a GitHub Enterprise Server (`pathPrefix`).
 *
 * It answers only in GitHub's documented shapes. Its REST routes are keyed by the operations of
 * GitHub's OpenAPI description (`@octokit/openapi`): a request that the operation would not take
 * gets GitHub's 422 and is noted in `request.problems`; an answer of the fake's own that the
 * description does not allow (a field it lacks, a required one missing) is answered as a 500
 * naming the problem and kept in `violations`. `assertConformance()` fails on either.
 *
 * Parts: state.ts (what it knows), rest.ts, graphql.ts, web.ts (the three surfaces), shapes.ts
 * (GitHub's JSON shapes), openapi.ts (the description as a checker), http.ts (the plumbing).
 */

type Surface = 'api' | 'graphql' | 'web';

interface Route {
  surface: Surface;
  key: string;
  method: string;
  pattern: RegExp;
  names: string[];
  /** Literal characters in the template: the more specific route wins. */
  weight: number;
  operation: Operation | undefined;
  handle: (request: RecordedRequest, params: Record<string, string>) => Reply | Promise<Reply>;
}

type Rule =
  | { kind: 'fail'; method?: string; path: string | RegExp; reply: Reply; remaining: number }
  | { kind: 'hang'; method?: string; path: string | RegExp; remaining: number };

export class FakeGitHub {
  readonly requests: RecordedRequest[] = [];
  /** Answers of the fake's own that GitHub's description does not allow (each a 500 sent). */
  readonly violations: string[] = [];
  /** Where the install flow redirects (Ferry's {PUBLIC_URL}/github/setup). */
  setupUrl: string | null = null;
  /** Default redirect of OAuth authorize when the request names no redirect_uri. */
  callbackUrl: string | null = null;
  /** Repos the browser install flow gives the acting user's NEW installation. */
  nextInstallRepos: Array<{ name: string; defaultBranch?: string }> = [
    { name: 'shop', defaultBranch: 'main' },
  ];

  private readonly state: FakeState;
  private readonly spec: OpenApi;
  private readonly prefix: string;
  private readonly onRequest: ((request: RecordedRequest) => void) | undefined;
  private readonly server: http.Server;
  private readonly routes: Route[];
  private rules: Rule[] = [];
  private port: number | undefined;

  constructor(options: FakeGitHubOptions = {}) {
    this.state = new FakeState(options.accessTokenTtlSeconds ?? 28_800);
    this.spec = OpenApi.load();
    this.prefix = normalizePrefix(options.pathPrefix);
    this.onRequest = options.onRequest;
    this.routes = this.buildRoutes();
    this.server = http.createServer((req, res) => {
      this.receive(req, res).catch((error: unknown) => {
        if (!res.headersSent) send(res, { status: 500, json: { message: String(error) } });
      });
    });
  }

  get appId(): string {
    return this.state.appId;
  }
  get slug(): string {
    return this.state.slug;
  }
  get clientId(): string {
    return this.state.clientId;
  }
  get clientSecret(): string {
    return this.state.clientSecret;
  }
  get privateKeyPem(): string {
    return this.state.privateKeyPem;
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.state.webUrl = this.webUrl;
    this.state.apiUrl = this.apiUrl;
    return this;
  }

  /** Stops the server; hung requests end with their connections. */
  async close(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  get webUrl(): string {
    if (this.port === undefined) throw new Error('FakeGitHub is not started');
    return `http://127.0.0.1:${this.port}${this.prefix}`;
  }

  get apiUrl(): string {
    return this.prefix ? `${this.webUrl}/api/v3` : this.webUrl;
  }

  /** Where @octokit/graphql goes for this apiUrl (GHES: /api/v3 becomes /api/graphql). */
  get graphqlUrl(): string {
    return this.prefix ? `${this.webUrl}/api/graphql` : `${this.webUrl}/graphql`;
  }

  // ---- seeding and scripting -------------------------------------------------------------

  addUser(login: string): FakeGitHubUser {
    return this.state.addUser(login);
  }

  /** The "browser user" behind the authorize and install pages. */
  actAs(login: string): void {
    this.state.actingLogin = this.state.addUser(login).login;
  }

  addInstallation(options: FakeInstallationOptions): { id: number; repos: FakeRepo[] } {
    const installation = this.state.addInstallation(options);
    return { id: installation.id, repos: [...installation.repos] };
  }

  /** States a newly created agent task walks through, one per GET; it stays on the last. */
  scriptTasks(steps: FakeTaskStep[]): void {
    if (steps.length === 0) throw new Error('FakeGitHub.scriptTasks needs at least one step');
    this.state.taskSteps = [...steps];
  }

  /** What successive timeline polls of an issue show once Copilot is assigned to it. */
  scriptAssignment(steps: FakeAssignmentStep[]): void {
    if (steps.length === 0) throw new Error('FakeGitHub.scriptAssignment needs at least one step');
    this.state.assignmentSteps = [...steps];
  }

  /**
   * Whether a task's sessions show their prompt. GitHub's description has the field but does not
   * require it; false shows a task as GitHub may: no prompt anywhere, only the name derived from it.
   */
  showSessionPrompts(show: boolean): void {
    this.state.sessionPrompts = show;
  }

  /** Undoes refuseAgentTasks: the task API answers that user again. */
  allowAgentTasks(login: string): void {
    this.state.refusedAgentUsers.delete(login.toLowerCase());
  }

  refuseAgentTasks(login: string, status: 403 | 404 | 422 = 403): void {
    this.state.refusedAgentUsers.set(login.toLowerCase(), status);
  }

  failNext(rule: FailRule): void {
    const json =
      rule.body === undefined ? { message: http.STATUS_CODES[rule.status] ?? 'Error' } : rule.body;
    const reply: Reply =
      typeof json === 'string'
        ? { status: rule.status, text: json, headers: lowerCaseKeys(rule.headers) }
        : { status: rule.status, json, headers: lowerCaseKeys(rule.headers) };
    this.rules.push({
      kind: 'fail',
      method: rule.method,
      path: rule.path,
      reply,
      remaining: rule.times ?? 1,
    });
  }

  /** Accept matching requests and never answer them (until close()), to provoke timeouts. */
  hangNext(rule: HangRule): void {
    this.rules.push({
      kind: 'hang',
      method: rule.method,
      path: rule.path,
      remaining: rule.times ?? 1,
    });
  }

  /** Every current access token of that user answers 401 from now on; refresh tokens still work. */
  revokeUserTokens(login: string): void {
    for (const token of this.state.userTokens.values()) {
      if (token.login.toLowerCase() === login.toLowerCase()) token.revoked = true;
    }
  }

  // ---- inspection ------------------------------------------------------------------------

  /** The GITHUB_* variables that point Ferry at this fake (the App's id, key, slug, OAuth client). */
  env(): Record<string, string> {
    return {
      GITHUB_APP_ID: this.appId,
      GITHUB_APP_PRIVATE_KEY: this.privateKeyPem,
      GITHUB_APP_SLUG: this.slug,
      GITHUB_CLIENT_ID: this.clientId,
      GITHUB_CLIENT_SECRET: this.clientSecret,
      GITHUB_API_URL: this.apiUrl,
      GITHUB_WEB_URL: this.webUrl,
    };
  }

  requestsTo(method: string, path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((request) => matches({ method, path }, request));
  }

  issues(repoFullName?: string): FakeIssue[] {
    return this.state.issueStates
      .map(({ issue }) => ({ ...issue, assignees: [...issue.assignees] }))
      .filter(
        (issue) => !repoFullName || issue.repoFullName.toLowerCase() === repoFullName.toLowerCase(),
      );
  }

  tasks(): FakeTaskRecord[] {
    return [...this.state.taskStates.values()].map(
      ({ id, repoFullName, login, body, stepIndex, createdAt }) => ({
        id,
        repoFullName,
        login,
        body,
        stepIndex,
        createdAt,
      }),
    );
  }

  /** The state a task shows now (its script's current step). */
  taskState(id: string): string | undefined {
    const task = this.state.taskStates.get(id);
    return task ? stepOf(task.steps[task.stepIndex] ?? 'queued').state : undefined;
  }

  /**
   * Throws when a request reached the fake that GitHub's description of its operation would not
   * take, or the fake answered outside the description: what a test ends with to prove the client
   * and the fake spoke only documented GitHub.
   */
  assertConformance(): void {
    const bad = this.requests
      .filter((request) => request.problems?.length)
      .map((r) => `${r.method} ${r.path} (${r.operation}): ${r.problems!.join('; ')}`);
    const all = [...bad, ...this.violations];
    if (all.length) {
      throw new Error(`FakeGitHub: not as GitHub describes it:\n- ${all.join('\n- ')}`);
    }
  }

  // ---- request pipeline ------------------------------------------------------------------

  private async receive(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = flatHeaders(req.headers);
    const target = req.url ?? '/';
    const url = new URL(target, 'http://127.0.0.1');
    const located = this.locate(url.pathname);
    const request: RecordedRequest = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: located?.path ?? url.pathname,
      url: target,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: parseBody(Buffer.concat(chunks).toString('utf8'), headers['content-type'] ?? ''),
      at: Date.now(),
    };
    const found = located ? this.route(located.surface, request) : undefined;
    if (found?.route.operation) {
      request.operation = found.route.key;
      request.problems = this.spec.checkRequest(found.route.operation, {
        params: found.params,
        query: request.query,
        body: request.body,
      });
    }
    this.requests.push(request);
    this.onRequest?.(request);
    // Outside the configured base (e.g. a client that dropped the GHES prefix): plain 404.
    if (!located) return send(res, notFound());
    const rule = this.takeRule(request);
    if (rule?.kind === 'hang') return;
    if (rule?.kind === 'fail') return send(res, rule.reply);
    if (!found) return send(res, notFound());
    send(res, await this.answer(found.route, found.params, request));
  }

  private async answer(
    route: Route,
    params: Record<string, string>,
    request: RecordedRequest,
  ): Promise<Reply> {
    if (route.operation && request.problems?.length) {
      return validationFailed(
        request.problems.map((problem) => ({
          code: /required/.test(problem) ? 'missing_field' : 'invalid',
          message: problem,
        })),
      );
    }
    let reply: Reply;
    try {
      reply = await route.handle(request, params);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      reply = error.reply;
    }
    if (!route.operation) return reply;
    const problems = this.spec.checkResponse(route.operation, reply.status, reply.json);
    if (!problems.length) return reply;
    const said = `FakeGitHub answered ${route.key} (${route.operation.operationId}) with ${reply.status} outside GitHub's description: ${problems.join('; ')}`;
    this.violations.push(said);
    return { status: 500, json: { message: said } };
  }

  /** Splits a raw path into its surface and the path without the base. */
  private locate(pathname: string): { surface: Surface; path: string } | undefined {
    if (!this.prefix) {
      if (pathname === '/graphql') return { surface: 'graphql', path: pathname };
      if (/^\/(login|apps)\//.test(pathname)) return { surface: 'web', path: pathname };
      return { surface: 'api', path: pathname };
    }
    const api = `${this.prefix}/api/v3`;
    if (pathname === `${this.prefix}/api/graphql`) return { surface: 'graphql', path: '/graphql' };
    if (pathname.startsWith(`${api}/`)) return { surface: 'api', path: pathname.slice(api.length) };
    if (pathname.startsWith(`${this.prefix}/`)) {
      return { surface: 'web', path: pathname.slice(this.prefix.length) };
    }
    return undefined;
  }

  /** The first fail/hang rule matching, in the order added; it is used up after `times`. */
  private takeRule(request: RecordedRequest): Rule | undefined {
    const rule = this.rules.find((candidate) => matches(candidate, request));
    if (!rule) return undefined;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.rules = this.rules.filter((other) => other !== rule);
    return rule;
  }

  private route(
    surface: Surface,
    request: RecordedRequest,
  ): { route: Route; params: Record<string, string> } | undefined {
    let best: { route: Route; params: Record<string, string> } | undefined;
    for (const route of this.routes) {
      if (route.surface !== surface || route.method !== request.method) continue;
      const match = route.pattern.exec(request.path);
      if (!match) continue;
      if (best && best.route.weight >= route.weight) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(match[i + 1] ?? '');
      });
      best = { route, params };
    }
    return best;
  }

  private buildRoutes(): Route[] {
    const state = this.state;
    const rest = restRoutes(state);
    const web = webRoutes(state, {
      setupUrl: () => this.setupUrl,
      callbackUrl: () => this.callbackUrl,
      nextInstallRepos: () => this.nextInstallRepos,
    });
    const routes: Route[] = [];
    const add = (
      surface: Surface,
      key: string,
      handle: RestHandler | WebHandler | Route['handle'],
      operation: Operation | undefined,
    ): void => {
      const [method = '', template = ''] = key.split(' ');
      const names: string[] = [];
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const name = /^\{([^}]+)\}$/.exec(part)?.[1];
          if (!name) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
          names.push(name);
          return '([^/]+)';
        })
        .join('');
      routes.push({
        surface,
        key,
        method,
        pattern: new RegExp(`^${source}$`),
        names,
        weight: template.replace(/\{[^}]+\}/g, '').length,
        operation,
        handle,
      });
    };
    for (const [key, handle] of Object.entries(rest)) {
      const operation = this.spec.operation(key);
      // Every REST route is one of GitHub's described operations, checked both ways.
      if (!operation) throw new Error(`FakeGitHub: ${key} is not in GitHub's REST description`);
      this.spec.warm(operation);
      add('api', key, handle, operation);
    }
    for (const [key, handle] of Object.entries(web)) add('web', key, handle, undefined);
    add('graphql', 'POST /graphql', (request) => answerGraphql(state, request), undefined);
    return routes;
  }
}

function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
