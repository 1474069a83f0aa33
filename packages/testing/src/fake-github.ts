import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import querystring from 'node:querystring';
import { URL } from 'node:url';

export interface FakeGitHubUser {
  login: string;
  id: number;
  nodeId: string;
}

export interface FakeRepo {
  id: number;
  nodeId: string;
  name: string;
  fullName: string;
  defaultBranch: string;
  private: boolean;
}

export interface FakeIssue {
  id: number;
  nodeId: string;
  number: number;
  htmlUrl: string;
  title: string;
  body: string;
  repoFullName: string;
  assignees: string[];
}

/** One state an agent task shows; `pr` makes the pull request exist from this step on. */
export type FakeTaskStep = string | { state: string; pr?: boolean; error?: string };

export type FakeAssignmentStep = 'none' | 'pr' | 'merged';

export interface RecordedRequest {
  method: string;
  /** Without the prefix: /repos/o/r/issues, /login/oauth/access_token, /graphql. Requests outside
   * the configured base keep their raw path (see `url`). */
  path: string;
  /** The request target exactly as received (prefix and query string included). */
  url: string;
  query: Record<string, string>;
  /** Header names lower-cased; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** Parsed JSON, a form object, the raw text when neither parses, or undefined when empty. */
  body: unknown;
  at: number;
}

export interface FakeGitHubOptions {
  /** e.g. '/ghe': GitHub Enterprise Server layout (web at /ghe, REST at /ghe/api/v3). */
  pathPrefix?: string;
  /** Lifetime of user access tokens (ghu_); GitHub's default is 8 hours. */
  accessTokenTtlSeconds?: number;
  /** Called as each request arrives, before it is answered (the CLI logs with it). */
  onRequest?: (request: RecordedRequest) => void;
}

export interface FakeInstallationOptions {
  account: string;
  repos: Array<{ name: string; defaultBranch?: string; private?: boolean }>;
  /** Logins who see it in GET /user/installations (and may use its repos); default [account]. */
  users?: string[];
}

export interface FailRule {
  method?: string;
  /** Matched against the unprefixed path: a string exactly, a RegExp by test(). */
  path: string | RegExp;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  times?: number;
}

export interface HangRule {
  method?: string;
  path: string | RegExp;
  times?: number;
}

export interface FakeTaskRecord {
  id: string;
  repoFullName: string;
  login: string;
  body: unknown;
  stepIndex: number;
}

/** The Copilot coding agent as GitHub's GraphQL API names it among an issue's suggested actors. */
export const COPILOT_BOT = { login: 'copilot-swe-agent', id: 'BOT_kgDOC9w8XQ' } as const;

const DEFAULT_TASK_STEPS: FakeTaskStep[] = [
  'queued',
  'in_progress',
  { state: 'in_progress', pr: true },
  { state: 'completed', pr: true },
];
const DEFAULT_ASSIGNMENT_STEPS: FakeAssignmentStep[] = ['none', 'pr', 'merged'];
const INSTALLATION_TOKEN_TTL_MS = 60 * 60 * 1000;
const OAUTH_CODE_TTL_MS = 10 * 60 * 1000;
const REFRESH_TOKEN_TTL_SECONDS = 15_897_600;
const JWT_MAX_LIFETIME_SECONDS = 11 * 60;
const JWT_CLOCK_SKEW_SECONDS = 60;
const FEATURE_COPILOT_ASSIGNMENT = 'issues_copilot_assignment_api_support';

type Surface = 'api' | 'graphql' | 'web';

interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** Thrown by handlers to answer early with a GitHub-style `{message}` error. */
class Refusal extends Error {
  constructor(readonly reply: Reply) {
    super(`refused with ${reply.status}`);
  }
}

function refuse(status: number, message: string): never {
  throw new Refusal({ status, json: { message } });
}

interface Route {
  surface: Surface;
  method: string;
  pattern: RegExp;
  handle: (request: RecordedRequest, params: string[]) => Reply;
}

interface Installation {
  id: number;
  account: FakeGitHubUser;
  repos: FakeRepo[];
  users: Set<string>;
}

interface PullRequest {
  id: number;
  number: number;
  htmlUrl: string;
}

interface IssueState {
  issue: FakeIssue;
  /** Set while Copilot is assigned: the scripted timeline it walks, one step per poll. */
  walk?: { steps: FakeAssignmentStep[]; index: number; pr?: PullRequest };
}

interface TaskState {
  id: string;
  repoFullName: string;
  login: string;
  body: unknown;
  steps: FakeTaskStep[];
  stepIndex: number;
  createdAt: string;
  updatedAt: string;
  pr?: PullRequest;
}

interface UserToken {
  login: string;
  expiresAt: number;
  revoked: boolean;
}

type Rule =
  | { kind: 'fail'; method?: string; path: string | RegExp; reply: Reply; remaining: number }
  | { kind: 'hang'; method?: string; path: string | RegExp; remaining: number };

type Caller =
  { kind: 'installation'; installation: Installation } | { kind: 'user'; user: FakeGitHubUser };

function randomHex(bytes: number): string {
  return crypto.randomBytes(bytes).toString('hex');
}

/** GitHub-looking global node id (prefix tells the type, the rest is opaque). */
function nodeId(prefix: string, id: number): string {
  return `${prefix}_${Buffer.from(`fake:${id}`).toString('base64url')}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function stringField(source: unknown, key: string): string | undefined {
  if (!isRecord(source)) return undefined;
  const value = source[key];
  return typeof value === 'string' ? value : undefined;
}

/** Strings only: form values, and JSON values that are scalars (client_id may arrive as JSON). */
function flatStrings(source: unknown): Record<string, string> {
  if (!isRecord(source)) return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === 'string' || typeof value === 'number') out[key] = String(value);
  }
  return out;
}

function parseBody(raw: string, contentType: string): unknown {
  if (raw === '') return undefined;
  if (contentType.includes('application/x-www-form-urlencoded')) {
    return flatStrings(querystring.parse(raw));
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function lowerCaseKeys(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function bearerToken(headers: Record<string, string>): string | undefined {
  const match = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function stepOf(step: FakeTaskStep): { state: string; pr: boolean; error?: string } {
  return typeof step === 'string' ? { state: step, pr: false } : { pr: false, ...step };
}

function matches(
  rule: { method?: string; path: string | RegExp },
  request: RecordedRequest,
): boolean {
  if (rule.method && rule.method.toUpperCase() !== request.method) return false;
  return typeof rule.path === 'string' ? rule.path === request.path : rule.path.test(request.path);
}

/**
 * Verifies a GitHub App JWT as GitHub does: RS256 signed by the App's key, issued by the App,
 * unexpired, at most ~10 minutes long, and not issued in the future (with a little clock skew).
 */
export function verifyAppJwt(jwt: string, publicKey: crypto.KeyObject, appId: string): boolean {
  const parts = jwt.split('.');
  if (parts.length !== 3) return false;
  const [header = '', payload = '', signature = ''] = parts;
  const head = parseJsonObject(Buffer.from(header, 'base64url').toString('utf8'));
  if (head?.alg !== 'RS256') return false;
  let signed: boolean;
  try {
    signed = crypto.verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      publicKey,
      Buffer.from(signature, 'base64url'),
    );
  } catch {
    return false;
  }
  if (!signed) return false;
  const claims = parseJsonObject(Buffer.from(payload, 'base64url').toString('utf8'));
  if (!claims) return false;
  const { iss, exp, iat } = claims;
  const now = Math.floor(Date.now() / 1000);
  const issuedByApp = (typeof iss === 'string' || typeof iss === 'number') && String(iss) === appId;
  const fresh = typeof exp === 'number' && exp > now && exp <= now + JWT_MAX_LIFETIME_SECONDS;
  const notFuture = typeof iat === 'number' && iat <= now + JWT_CLOCK_SKEW_SECONDS;
  return issuedByApp && fresh && notFuture;
}

/**
 * A fake GitHub on a real loopback HTTP server: the App's REST endpoints, the Copilot agent-task
 * API, the few GraphQL operations Ferry sends, and the OAuth/App-install browser flows. Clients
 * talk real HTTP to it, so base URLs, auth headers and retries are exercised as they would be
 * against github.com or a GitHub Enterprise Server (`pathPrefix`).
 */
export class FakeGitHub {
  readonly appId = String(crypto.randomInt(100_000, 1_000_000));
  readonly slug = 'ferry-fake';
  readonly clientId = `Iv23li${randomHex(7)}`;
  readonly clientSecret = randomHex(20);
  readonly privateKeyPem: string;
  readonly requests: RecordedRequest[] = [];
  /** Where the install flow redirects (Ferry's {PUBLIC_URL}/github/setup). */
  setupUrl: string | null = null;
  /** Default redirect of OAuth authorize when the request names no redirect_uri. */
  callbackUrl: string | null = null;
  /** Repos the browser install flow gives the acting user's NEW installation. */
  nextInstallRepos: Array<{ name: string; defaultBranch?: string }> = [
    { name: 'shop', defaultBranch: 'main' },
  ];

  private readonly publicKey: crypto.KeyObject;
  private readonly prefix: string;
  private readonly accessTokenTtlSeconds: number;
  private readonly onRequest: ((request: RecordedRequest) => void) | undefined;
  private readonly server: http.Server;
  private readonly routes: Route[];
  private port: number | undefined;

  // Distinct id ranges per kind, so a client mixing up an installation id and a repo id fails.
  private nextUserId = 1;
  private nextInstallationId = 40_001;
  private nextRepoId = 500_001;
  private nextIssueId = 9_000_001;

  private readonly users = new Map<string, FakeGitHubUser>();
  private actingLogin: string | undefined;
  private readonly installations = new Map<number, Installation>();
  private readonly reposByName = new Map<string, { repo: FakeRepo; installation: Installation }>();
  /** Issues and pull requests share one number sequence per repo, as on GitHub. */
  private readonly nextNumber = new Map<string, number>();
  private readonly issueStates: IssueState[] = [];
  private readonly taskStates = new Map<string, TaskState>();
  private taskSteps: FakeTaskStep[] = DEFAULT_TASK_STEPS;
  private assignmentSteps: FakeAssignmentStep[] = DEFAULT_ASSIGNMENT_STEPS;
  private readonly refusedAgentUsers = new Map<string, number>();
  private rules: Rule[] = [];

  private readonly installationTokens = new Map<
    string,
    { installationId: number; expiresAt: number }
  >();
  private readonly userTokens = new Map<string, UserToken>();
  private readonly refreshTokens = new Map<
    string,
    { login: string; used: boolean; expiresAt: number }
  >();
  private readonly oauthCodes = new Map<
    string,
    { login: string; used: boolean; expiresAt: number }
  >();

  constructor(options: FakeGitHubOptions = {}) {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    // PKCS#1 ("BEGIN RSA PRIVATE KEY") is what GitHub hands out for an App, so clients must cope.
    this.privateKeyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    this.publicKey = publicKey;
    this.prefix = normalizePrefix(options.pathPrefix);
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 28_800;
    this.onRequest = options.onRequest;
    this.routes = this.buildRoutes();
    this.server = http.createServer((req, res) => {
      this.receive(req, res).catch((error: unknown) => {
        if (!res.headersSent) send(res, { status: 500, json: { message: String(error) } });
      });
    });
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
    const known = this.users.get(login.toLowerCase());
    if (known) return known;
    const id = this.nextUserId++;
    const user = { login, id, nodeId: nodeId('U', id) };
    this.users.set(login.toLowerCase(), user);
    return user;
  }

  /** The "browser user" behind the authorize and install pages. */
  actAs(login: string): void {
    this.actingLogin = this.addUser(login).login;
  }

  addInstallation(options: FakeInstallationOptions): { id: number; repos: FakeRepo[] } {
    const account = this.addUser(options.account);
    const installation: Installation = {
      id: this.nextInstallationId++,
      account,
      repos: [],
      users: new Set((options.users ?? [account.login]).map((login) => this.addUser(login).login)),
    };
    for (const spec of options.repos) {
      const fullName = `${account.login}/${spec.name}`;
      if (this.reposByName.has(fullName.toLowerCase())) {
        throw new Error(`FakeGitHub: ${fullName} already belongs to an installation`);
      }
      const id = this.nextRepoId++;
      const repo: FakeRepo = {
        id,
        nodeId: nodeId('R', id),
        name: spec.name,
        fullName,
        defaultBranch: spec.defaultBranch ?? 'main',
        private: spec.private ?? false,
      };
      installation.repos.push(repo);
      this.reposByName.set(fullName.toLowerCase(), { repo, installation });
    }
    this.installations.set(installation.id, installation);
    return { id: installation.id, repos: [...installation.repos] };
  }

  /** States a newly created agent task walks through, one per GET; it stays on the last. */
  scriptTasks(steps: FakeTaskStep[]): void {
    if (steps.length === 0) throw new Error('FakeGitHub.scriptTasks needs at least one step');
    this.taskSteps = [...steps];
  }

  /** What successive timeline polls of an issue show once Copilot is assigned to it. */
  scriptAssignment(steps: FakeAssignmentStep[]): void {
    if (steps.length === 0) throw new Error('FakeGitHub.scriptAssignment needs at least one step');
    this.assignmentSteps = [...steps];
  }

  /** Undoes refuseAgentTasks: the task API answers that user again. */
  allowAgentTasks(login: string): void {
    this.refusedAgentUsers.delete(login.toLowerCase());
  }

  refuseAgentTasks(login: string, status: 403 | 404 | 422 = 403): void {
    this.refusedAgentUsers.set(login.toLowerCase(), status);
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
    for (const token of this.userTokens.values()) {
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
    return this.issueStates
      .map(({ issue }) => ({ ...issue, assignees: [...issue.assignees] }))
      .filter(
        (issue) => !repoFullName || issue.repoFullName.toLowerCase() === repoFullName.toLowerCase(),
      );
  }

  tasks(): FakeTaskRecord[] {
    return [...this.taskStates.values()].map(({ id, repoFullName, login, body, stepIndex }) => ({
      id,
      repoFullName,
      login,
      body,
      stepIndex,
    }));
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
    this.requests.push(request);
    this.onRequest?.(request);
    // Outside the configured base (e.g. a client that dropped the GHES prefix): plain 404.
    if (!located) return send(res, notFound());
    const rule = this.takeRule(request);
    if (rule?.kind === 'hang') return;
    if (rule?.kind === 'fail') return send(res, rule.reply);
    send(res, this.dispatch(located.surface, request));
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

  private dispatch(surface: Surface, request: RecordedRequest): Reply {
    for (const route of this.routes) {
      if (route.surface !== surface || route.method !== request.method) continue;
      const match = route.pattern.exec(request.path);
      if (!match) continue;
      try {
        return route.handle(
          request,
          match.slice(1).map((part) => decodeURIComponent(part)),
        );
      } catch (error) {
        if (error instanceof Refusal) return error.reply;
        throw error;
      }
    }
    return notFound();
  }

  private buildRoutes(): Route[] {
    const seg = '([^/]+)';
    const route = (
      surface: Surface,
      method: string,
      path: string,
      handle: (request: RecordedRequest, params: string[]) => Reply,
    ): Route => ({ surface, method, pattern: new RegExp(`^${path}$`), handle });
    return [
      route('api', 'POST', '/app/installations/(\\d+)/access_tokens', (r, p) =>
        this.createInstallationToken(r, Number(p[0])),
      ),
      route('api', 'GET', '/installation/repositories', (r) => this.listInstallationRepos(r)),
      route('api', 'GET', '/user', (r) => this.getUser(r)),
      route('api', 'GET', '/user/installations', (r) => this.listUserInstallations(r)),
      route('api', 'POST', `/repos/${seg}/${seg}/issues`, (r, p) =>
        this.createIssue(r, fullName(p)),
      ),
      route('api', 'GET', `/repos/${seg}/${seg}/issues`, (r, p) => this.listIssues(r, fullName(p))),
      route('api', 'POST', `/agents/repos/${seg}/${seg}/tasks`, (r, p) =>
        this.createTask(r, fullName(p)),
      ),
      route('api', 'GET', `/agents/repos/${seg}/${seg}/tasks`, (r, p) =>
        this.listTasks(r, fullName(p)),
      ),
      route('api', 'GET', `/agents/repos/${seg}/${seg}/tasks/${seg}`, (r, p) =>
        this.getTask(r, fullName(p), p[2] ?? ''),
      ),
      route('graphql', 'POST', '/graphql', (r) => this.graphql(r)),
      route('web', 'GET', '/login/oauth/authorize', (r) => this.authorize(r)),
      route('web', 'POST', '/login/oauth/access_token', (r) => this.exchangeToken(r)),
      route('web', 'GET', `/apps/${seg}/installations/new`, (r, p) =>
        this.installApp(r, p[0] ?? ''),
      ),
    ];
  }

  // ---- authentication --------------------------------------------------------------------

  /** Who a bearer token belongs to; 401 for a missing, unknown, expired or revoked token. */
  private authenticate(request: RecordedRequest): Caller {
    const token = bearerToken(request.headers);
    if (!token) refuse(401, 'Requires authentication');
    const now = Date.now();
    const installationToken = this.installationTokens.get(token);
    if (installationToken) {
      const installation = this.installations.get(installationToken.installationId);
      if (installation && installationToken.expiresAt > now)
        return { kind: 'installation', installation };
      refuse(401, 'Bad credentials');
    }
    const userToken = this.userTokens.get(token);
    const user = userToken && this.users.get(userToken.login.toLowerCase());
    if (!userToken || !user || userToken.revoked || userToken.expiresAt <= now) {
      refuse(401, 'Bad credentials');
    }
    return { kind: 'user', user };
  }

  private requireUser(request: RecordedRequest): FakeGitHubUser {
    const caller = this.authenticate(request);
    if (caller.kind !== 'user') refuse(403, 'Resource not accessible by integration');
    return caller.user;
  }

  private requireInstallation(request: RecordedRequest): Installation {
    const caller = this.authenticate(request);
    if (caller.kind !== 'installation') {
      refuse(403, 'You must authenticate with an installation access token to use this endpoint.');
    }
    return caller.installation;
  }

  /** A repo the user may use: some installation that has it lists the user. */
  private repoVisibleTo(user: FakeGitHubUser, repoFullName: string): FakeRepo | undefined {
    const entry = this.reposByName.get(repoFullName.toLowerCase());
    return entry?.installation.users.has(user.login) ? entry.repo : undefined;
  }

  private issueUserTokens(login: string): Record<string, unknown> {
    const accessToken = `ghu_${randomHex(18)}`;
    const refreshToken = `ghr_${randomHex(38)}`;
    const now = Date.now();
    this.userTokens.set(accessToken, {
      login,
      expiresAt: now + this.accessTokenTtlSeconds * 1000,
      revoked: false,
    });
    this.refreshTokens.set(refreshToken, {
      login,
      used: false,
      expiresAt: now + REFRESH_TOKEN_TTL_SECONDS * 1000,
    });
    return {
      access_token: accessToken,
      expires_in: this.accessTokenTtlSeconds,
      refresh_token: refreshToken,
      refresh_token_expires_in: REFRESH_TOKEN_TTL_SECONDS,
      token_type: 'bearer',
      scope: '',
    };
  }

  // ---- REST ------------------------------------------------------------------------------

  private createInstallationToken(request: RecordedRequest, installationId: number): Reply {
    const jwt = bearerToken(request.headers);
    if (!jwt || !verifyAppJwt(jwt, this.publicKey, this.appId)) {
      refuse(401, 'A JSON web token could not be decoded');
    }
    if (!this.installations.has(installationId)) refuse(404, 'Not Found');
    const token = `ghs_${randomHex(18)}`;
    const expiresAt = Date.now() + INSTALLATION_TOKEN_TTL_MS;
    this.installationTokens.set(token, { installationId, expiresAt });
    return {
      status: 201,
      json: {
        token,
        expires_at: new Date(expiresAt).toISOString(),
        permissions: { issues: 'write', metadata: 'read', pull_requests: 'read' },
        repository_selection: 'selected',
      },
    };
  }

  private listInstallationRepos(request: RecordedRequest): Reply {
    const installation = this.requireInstallation(request);
    const { items, headers } = this.paginate(installation.repos, request);
    return {
      status: 200,
      headers,
      json: {
        total_count: installation.repos.length,
        repositories: items.map((repo) => ({
          id: repo.id,
          node_id: repo.nodeId,
          name: repo.name,
          full_name: repo.fullName,
          default_branch: repo.defaultBranch,
          private: repo.private,
          owner: { login: installation.account.login },
        })),
      },
    };
  }

  private getUser(request: RecordedRequest): Reply {
    const user = this.requireUser(request);
    return {
      status: 200,
      json: { login: user.login, id: user.id, node_id: user.nodeId, type: 'User' },
    };
  }

  private listUserInstallations(request: RecordedRequest): Reply {
    const user = this.requireUser(request);
    const visible = [...this.installations.values()].filter((i) => i.users.has(user.login));
    const { items, headers } = this.paginate(visible, request);
    return {
      status: 200,
      headers,
      json: {
        total_count: visible.length,
        installations: items.map((installation) => ({
          id: installation.id,
          app_id: Number(this.appId),
          app_slug: this.slug,
          account: { login: installation.account.login, id: installation.account.id },
        })),
      },
    };
  }

  /** GitHub's page/per_page (default 30, max 100) with a `link` header naming the next page. */
  private paginate<T>(
    all: T[],
    request: RecordedRequest,
  ): { items: T[]; headers: Record<string, string> } {
    const perPage = Math.min(100, Math.max(1, Number(request.query.per_page) || 30));
    const page = Math.max(1, Math.floor(Number(request.query.page) || 1));
    const items = all.slice((page - 1) * perPage, page * perPage);
    const last = Math.max(1, Math.ceil(all.length / perPage));
    if (page >= last) return { items, headers: {} };
    const pageUrl = (n: number): string =>
      `<${this.apiUrl}${request.path}?per_page=${perPage}&page=${n}>`;
    return {
      items,
      headers: { link: `${pageUrl(page + 1)}; rel="next", ${pageUrl(last)}; rel="last"` },
    };
  }

  private createIssue(request: RecordedRequest, repoFullName: string): Reply {
    const caller = this.authenticate(request);
    const entry = this.reposByName.get(repoFullName.toLowerCase());
    // Only the App's installation that holds the repo may write to it here.
    if (caller.kind !== 'installation' || !entry || entry.installation !== caller.installation) {
      refuse(404, 'Not Found');
    }
    const title = stringField(request.body, 'title');
    if (!title) {
      return {
        status: 422,
        json: {
          message: 'Validation Failed',
          errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }],
        },
      };
    }
    const { repo } = entry;
    const number = this.takeNumber(repo.fullName);
    const id = this.nextIssueId++;
    const issue: FakeIssue = {
      id,
      nodeId: nodeId('I', id),
      number,
      htmlUrl: `${this.webUrl}/${repo.fullName}/issues/${number}`,
      title,
      body: stringField(request.body, 'body') ?? '',
      repoFullName: repo.fullName,
      assignees: [],
    };
    this.issueStates.push({ issue });
    return {
      status: 201,
      json: {
        id: issue.id,
        node_id: issue.nodeId,
        number: issue.number,
        html_url: issue.htmlUrl,
        title: issue.title,
        body: issue.body,
        state: 'open',
      },
    };
  }

  /** The repo's issues, newest first (what a re-run searches for its marker). */
  private listIssues(request: RecordedRequest, repoFullName: string): Reply {
    const caller = this.authenticate(request);
    const entry = this.reposByName.get(repoFullName.toLowerCase());
    const visible =
      entry &&
      (caller.kind === 'installation'
        ? entry.installation === caller.installation
        : this.repoVisibleTo(caller.user, repoFullName));
    if (!entry || !visible) refuse(404, 'Not Found');
    const all = this.issueStates
      .map(({ issue }) => issue)
      .filter((issue) => issue.repoFullName === entry.repo.fullName)
      .reverse()
      .map((issue) => ({
        id: issue.id,
        node_id: issue.nodeId,
        number: issue.number,
        html_url: issue.htmlUrl,
        title: issue.title,
        body: issue.body,
        state: 'open',
      }));
    const { items, headers } = this.paginate(all, request);
    return { status: 200, json: items, headers };
  }

  private takeNumber(repoFullName: string): number {
    const number = this.nextNumber.get(repoFullName) ?? 1;
    this.nextNumber.set(repoFullName, number + 1);
    return number;
  }

  private openPullRequest(repoFullName: string): PullRequest {
    const number = this.takeNumber(repoFullName);
    return {
      id: this.nextIssueId++,
      number,
      htmlUrl: `${this.webUrl}/${repoFullName}/pull/${number}`,
    };
  }

  // ---- Copilot agent tasks ---------------------------------------------------------------

  private createTask(request: RecordedRequest, repoFullName: string): Reply {
    const user = this.requireUser(request);
    const repo = this.repoVisibleTo(user, repoFullName);
    if (!repo) refuse(404, 'Not Found');
    const refusedWith = this.refusedAgentUsers.get(user.login.toLowerCase());
    if (refusedWith) refuse(refusedWith, 'Agent tasks are not available for this account');
    if (!stringField(request.body, 'prompt')) {
      return {
        status: 422,
        json: {
          message: 'Validation Failed',
          errors: [{ field: 'prompt', code: 'missing_field' }],
        },
      };
    }
    const now = new Date().toISOString();
    const task: TaskState = {
      id: crypto.randomUUID(),
      repoFullName: repo.fullName,
      login: user.login,
      body: request.body,
      steps: [...this.taskSteps],
      stepIndex: 0,
      createdAt: now,
      updatedAt: now,
    };
    this.taskStates.set(task.id, task);
    return { status: 201, json: this.renderTask(task) };
  }

  /** The user's tasks in the repo, newest first, each with the prompt it was started with. */
  private listTasks(request: RecordedRequest, repoFullName: string): Reply {
    const user = this.requireUser(request);
    const repo = this.repoVisibleTo(user, repoFullName);
    if (!repo) refuse(404, 'Not Found');
    const tasks = [...this.taskStates.values()]
      .filter((task) => task.repoFullName === repo.fullName && task.login === user.login)
      .reverse()
      .map((task) => ({ ...this.renderTask(task), prompt: stringField(task.body, 'prompt') }));
    return { status: 200, json: { tasks } };
  }

  private getTask(request: RecordedRequest, repoFullName: string, taskId: string): Reply {
    const user = this.requireUser(request);
    const task = this.taskStates.get(taskId);
    const repo = this.repoVisibleTo(user, repoFullName);
    if (!task || !repo || task.repoFullName !== repo.fullName) refuse(404, 'Not Found');
    if (task.stepIndex < task.steps.length - 1) {
      task.stepIndex += 1;
      task.updatedAt = new Date().toISOString();
    }
    return { status: 200, json: this.renderTask(task) };
  }

  /** The task as the API shows it at its current step; the PR is opened the first time a step has one. */
  private renderTask(task: TaskState): Record<string, unknown> {
    const step = stepOf(task.steps[task.stepIndex] ?? 'queued');
    if (step.pr && !task.pr) task.pr = this.openPullRequest(task.repoFullName);
    const artifacts = task.pr
      ? [
          {
            provider: 'github',
            type: 'pull',
            data: { id: task.pr.id, number: task.pr.number, html_url: task.pr.htmlUrl },
          },
        ]
      : [];
    return {
      id: task.id,
      state: step.state,
      html_url: `${this.webUrl}/copilot/tasks/${task.id}`,
      created_at: task.createdAt,
      updated_at: task.updatedAt,
      artifacts,
      ...(step.error === undefined ? {} : { error: { message: step.error } }),
    };
  }

  // ---- GraphQL ---------------------------------------------------------------------------

  private graphql(request: RecordedRequest): Reply {
    const caller = this.authenticate(request);
    if (caller.kind !== 'user') {
      return gqlErrors([{ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }]);
    }
    if (!isRecord(request.body)) return { status: 400, json: { message: 'Problems parsing JSON' } };
    const query = stringField(request.body, 'query') ?? '';
    const variables = isRecord(request.body.variables) ? request.body.variables : {};
    // No real parser: Ferry sends three operations, told apart by a name each contains.
    if (query.includes('replaceActorsForAssignable')) {
      return this.replaceActors(request, caller.user, variables);
    }
    if (query.includes('timelineItems')) return this.timeline(caller.user, variables);
    if (query.includes('suggestedActors')) return this.suggestedActors(caller.user, variables);
    return gqlErrors([{ message: 'unknown operation' }]);
  }

  private suggestedActors(user: FakeGitHubUser, variables: Record<string, unknown>): Reply {
    const name = `${stringField(variables, 'owner')}/${stringField(variables, 'name')}`;
    const repo = this.repoVisibleTo(user, name);
    if (!repo) return repoNotFound(name);
    return gqlData({
      repository: {
        id: repo.nodeId,
        suggestedActors: {
          nodes: [
            { __typename: 'Bot', login: COPILOT_BOT.login, id: COPILOT_BOT.id },
            { __typename: 'User', login: user.login, id: user.nodeId },
          ],
        },
      },
    });
  }

  private replaceActors(
    request: RecordedRequest,
    user: FakeGitHubUser,
    variables: Record<string, unknown>,
  ): Reply {
    if (!(request.headers['graphql-features'] ?? '').includes(FEATURE_COPILOT_ASSIGNMENT)) {
      return gqlErrors([
        { message: `agentAssignment requires the ${FEATURE_COPILOT_ASSIGNMENT} feature` },
      ]);
    }
    const input = isRecord(variables.input) ? variables.input : {};
    const assignableId = stringField(input, 'assignableId') ?? '';
    const state = this.issueStates.find(({ issue }) => issue.nodeId === assignableId);
    if (!state || !this.repoVisibleTo(user, state.issue.repoFullName)) {
      return nodeNotFound(assignableId);
    }
    const actorIds = Array.isArray(input.actorIds) ? input.actorIds : [];
    const logins: string[] = [];
    for (const actorId of actorIds) {
      const login = this.actorLogin(actorId);
      if (!login) return nodeNotFound(String(actorId));
      logins.push(login);
    }
    const targetRepositoryId = stringField(input.agentAssignment, 'targetRepositoryId');
    if (
      targetRepositoryId &&
      ![...this.reposByName.values()].some(({ repo }) => repo.nodeId === targetRepositoryId)
    ) {
      return nodeNotFound(targetRepositoryId);
    }
    const { issue } = state;
    const copilotWasAssigned = issue.assignees.includes(COPILOT_BOT.login);
    issue.assignees = logins;
    // Assigning Copilot starts the scripted timeline; unassigning it forgets the walk.
    if (!logins.includes(COPILOT_BOT.login)) state.walk = undefined;
    else if (!copilotWasAssigned) state.walk = { steps: [...this.assignmentSteps], index: -1 };
    return gqlData({
      replaceActorsForAssignable: {
        assignable: {
          __typename: 'Issue',
          id: issue.nodeId,
          number: issue.number,
          assignees: { nodes: logins.map((login) => ({ login })) },
        },
      },
    });
  }

  private actorLogin(actorId: unknown): string | undefined {
    if (actorId === COPILOT_BOT.id) return COPILOT_BOT.login;
    return [...this.users.values()].find((user) => user.nodeId === actorId)?.login;
  }

  private timeline(user: FakeGitHubUser, variables: Record<string, unknown>): Reply {
    const name = `${stringField(variables, 'owner')}/${stringField(variables, 'name')}`;
    const repo = this.repoVisibleTo(user, name);
    if (!repo) return repoNotFound(name);
    const number = Number(variables.number);
    const state = this.issueStates.find(
      ({ issue }) => issue.repoFullName === repo.fullName && issue.number === number,
    );
    if (!state) {
      return {
        status: 200,
        json: {
          data: { repository: { issue: null } },
          errors: [
            {
              type: 'NOT_FOUND',
              message: `Could not resolve to an Issue with the number of ${number}.`,
            },
          ],
        },
      };
    }
    const nodes = this.timelineStep(state);
    return gqlData({ repository: { issue: { timelineItems: { nodes } } } });
  }

  /** Advances the issue's scripted walk one step and renders it as timeline nodes. */
  private timelineStep(state: IssueState): unknown[] {
    const walk = state.walk;
    if (!walk) return [];
    walk.index = Math.min(walk.index + 1, walk.steps.length - 1);
    const step = walk.steps[walk.index] ?? 'none';
    if (step === 'none') return [];
    walk.pr ??= this.openPullRequest(state.issue.repoFullName);
    const merged = step === 'merged';
    return [
      {
        __typename: 'CrossReferencedEvent',
        source: {
          __typename: 'PullRequest',
          url: walk.pr.htmlUrl,
          number: walk.pr.number,
          state: merged ? 'MERGED' : 'OPEN',
          merged,
        },
      },
    ];
  }

  // ---- browser flows (web) ---------------------------------------------------------------

  private actingUser(): FakeGitHubUser {
    if (this.actingLogin) return this.addUser(this.actingLogin);
    const first = this.users.values().next();
    return first.done ? this.addUser('octocat') : first.value;
  }

  private authorize(request: RecordedRequest): Reply {
    if (request.query.client_id !== this.clientId) {
      return {
        status: 404,
        text: '<h1>404</h1><p>No OAuth app with that client_id.</p>',
        headers: html(),
      };
    }
    const redirect = request.query.redirect_uri ?? this.callbackUrl;
    if (!redirect) {
      return { status: 500, text: 'FakeGitHub: no redirect_uri given and callbackUrl is not set' };
    }
    const code = randomHex(10);
    this.oauthCodes.set(code, {
      login: this.actingUser().login,
      used: false,
      expiresAt: Date.now() + OAUTH_CODE_TTL_MS,
    });
    const location = new URL(redirect);
    location.searchParams.set('code', code);
    if (request.query.state !== undefined) location.searchParams.set('state', request.query.state);
    return { status: 302, headers: { location: location.toString() }, text: '' };
  }

  /** OAuth token endpoint: errors come back as HTTP 200 with an `error` field, as on GitHub. */
  private exchangeToken(request: RecordedRequest): Reply {
    const params = { ...request.query, ...flatStrings(request.body) };
    if (params.client_id !== this.clientId || params.client_secret !== this.clientSecret) {
      return oauthError(
        'incorrect_client_credentials',
        'The client_id and/or client_secret passed are incorrect.',
      );
    }
    if (params.grant_type === 'refresh_token') {
      const refresh = this.refreshTokens.get(params.refresh_token ?? '');
      if (!refresh || refresh.used || refresh.expiresAt <= Date.now()) {
        return oauthError('bad_refresh_token', 'The refresh token passed is incorrect or expired.');
      }
      refresh.used = true;
      return { status: 200, json: this.issueUserTokens(refresh.login) };
    }
    const code = this.oauthCodes.get(params.code ?? '');
    if (!code || code.used || code.expiresAt <= Date.now()) {
      return oauthError('bad_verification_code', 'The code passed is incorrect or expired.');
    }
    code.used = true;
    return { status: 200, json: this.issueUserTokens(code.login) };
  }

  private installApp(request: RecordedRequest, slug: string): Reply {
    if (slug !== this.slug) return { status: 404, text: '<h1>404</h1>', headers: html() };
    if (!this.setupUrl) {
      return {
        status: 500,
        text: 'FakeGitHub: setupUrl is not set, so the install flow has nowhere to go',
      };
    }
    const user = this.actingUser();
    const existing = [...this.installations.values()].find((i) => i.account.login === user.login);
    const installationId =
      existing?.id ??
      this.addInstallation({ account: user.login, repos: this.nextInstallRepos }).id;
    const location = new URL(this.setupUrl);
    location.searchParams.set('installation_id', String(installationId));
    location.searchParams.set('setup_action', 'install');
    if (request.query.state !== undefined) location.searchParams.set('state', request.query.state);
    return { status: 302, headers: { location: location.toString() }, text: '' };
  }
}

function fullName(params: string[]): string {
  return `${params[0] ?? ''}/${params[1] ?? ''}`;
}

function notFound(): Reply {
  return { status: 404, json: { message: 'Not Found' } };
}

function html(): Record<string, string> {
  return { 'content-type': 'text/html; charset=utf-8' };
}

function oauthError(error: string, description: string): Reply {
  return {
    status: 200,
    json: {
      error,
      error_description: description,
      error_uri:
        'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors',
    },
  };
}

function gqlData(data: unknown): Reply {
  return { status: 200, json: { data } };
}

function gqlErrors(errors: Array<Record<string, unknown>>): Reply {
  return { status: 200, json: { data: null, errors } };
}

function repoNotFound(name: string): Reply {
  return {
    status: 200,
    json: {
      data: { repository: null },
      errors: [
        {
          type: 'NOT_FOUND',
          message: `Could not resolve to a Repository with the name '${name}'.`,
        },
      ],
    },
  };
}

function nodeNotFound(id: string): Reply {
  return gqlErrors([
    { type: 'NOT_FOUND', message: `Could not resolve to a node with the global id of '${id}'.` },
  ]);
}

function send(res: http.ServerResponse, reply: Reply): void {
  const headers = { ...reply.headers };
  let payload = '';
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  } else if (reply.text !== undefined) {
    payload = reply.text;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}
