import crypto from 'node:crypto';
import { bearerToken, refuse } from './http.js';
import type {
  FakeAssignmentStep,
  FakeEnterprise,
  FakeGitHubUser,
  FakeInstallationOptions,
  FakeIssue,
  FakeRepo,
  FakeTaskStep,
  RecordedRequest,
} from './types.js';

/**
 * Everything the fake GitHub knows: users, installations and their repos, issues, pull requests,
 * agent tasks and tokens. The REST, GraphQL and web surfaces read and change it; none of them
 * keeps state of its own.
 */

export interface Installation {
  id: number;
  account:
    { kind: 'user'; user: FakeGitHubUser } | { kind: 'enterprise'; enterprise: FakeEnterprise };
  repos: FakeRepo[];
  users: Set<string>;
  createdAt: string;
}

export interface PullRequest {
  id: number;
  nodeId: string;
  number: number;
  htmlUrl: string;
  repoFullName: string;
  state: 'OPEN' | 'CLOSED' | 'MERGED';
}

export interface IssueState {
  issue: FakeIssue;
  createdAt: string;
  creator: FakeGitHubUser;
  /** Set while Copilot is assigned: the scripted timeline it walks, one step per poll. */
  walk?: { steps: FakeAssignmentStep[]; index: number; pr?: PullRequest };
}

export interface TaskState {
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

export type Caller =
  { kind: 'installation'; installation: Installation } | { kind: 'user'; user: FakeGitHubUser };

const DEFAULT_TASK_STEPS: FakeTaskStep[] = [
  'queued',
  'in_progress',
  { state: 'in_progress', pr: true },
  { state: 'completed', pr: true },
];
const DEFAULT_ASSIGNMENT_STEPS: FakeAssignmentStep[] = ['none', 'pr', 'merged'];
const INSTALLATION_TOKEN_TTL_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_TTL_SECONDS = 15_897_600;
const JWT_MAX_LIFETIME_SECONDS = 11 * 60;
const JWT_CLOCK_SKEW_SECONDS = 60;

export function randomHex(bytes: number): string {
  return crypto.randomBytes(bytes).toString('hex');
}

/** GitHub-looking global node id (prefix tells the type, the rest is opaque). */
export function nodeId(prefix: string, id: number): string {
  return `${prefix}_${Buffer.from(`fake:${id}`).toString('base64url')}`;
}

export function stepOf(step: FakeTaskStep): { state: string; pr: boolean; error?: string } {
  return typeof step === 'string' ? { state: step, pr: false } : { pr: false, ...step };
}

export class FakeState {
  /** Set when the server starts: every URL the fake hands out is under it. */
  webUrl = '';
  apiUrl = '';
  readonly appId = String(crypto.randomInt(100_000, 1_000_000));
  readonly slug = 'ferry-fake';
  readonly clientId = `Iv23li${crypto.randomBytes(7).toString('hex')}`;
  readonly clientSecret = randomHex(20);
  readonly publicKey: crypto.KeyObject;
  readonly privateKeyPem: string;
  readonly createdAt = new Date().toISOString();

  // Distinct id ranges per kind, so a client mixing up an installation id and a repo id fails.
  private nextUserId = 1;
  private nextEnterpriseId = 7_001;
  private nextInstallationId = 40_001;
  private nextRepoId = 500_001;
  nextIssueId = 9_000_001;

  readonly users = new Map<string, FakeGitHubUser>();
  actingLogin: string | undefined;
  readonly installations = new Map<number, Installation>();
  readonly reposByName = new Map<string, { repo: FakeRepo; installation: Installation }>();
  /** Issues and pull requests share one number sequence per repo, as on GitHub. */
  private readonly nextNumber = new Map<string, number>();
  readonly issueStates: IssueState[] = [];
  readonly pulls: PullRequest[] = [];
  readonly taskStates = new Map<string, TaskState>();
  taskSteps: FakeTaskStep[] = DEFAULT_TASK_STEPS;
  assignmentSteps: FakeAssignmentStep[] = DEFAULT_ASSIGNMENT_STEPS;
  readonly refusedAgentUsers = new Map<string, number>();
  /** GitHub's description makes a session's `prompt` optional: false answers without it. */
  sessionPrompts = true;

  readonly installationTokens = new Map<string, { installationId: number; expiresAt: number }>();
  readonly userTokens = new Map<string, { login: string; expiresAt: number; revoked: boolean }>();
  /** Each refresh token with the access token issued beside it (which a refresh revokes). */
  readonly refreshTokens = new Map<
    string,
    { login: string; used: boolean; expiresAt: number; accessToken: string }
  >();
  readonly oauthCodes = new Map<string, { login: string; used: boolean; expiresAt: number }>();

  constructor(readonly accessTokenTtlSeconds: number) {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    // PKCS#1 ("BEGIN RSA PRIVATE KEY") is what GitHub hands out for an App, so clients must cope.
    this.privateKeyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    this.publicKey = publicKey;
  }

  // ---- seeding ---------------------------------------------------------------------------

  addUser(login: string): FakeGitHubUser {
    const known = this.users.get(login.toLowerCase());
    if (known) return known;
    const id = this.nextUserId++;
    const user = { login, id, nodeId: nodeId('U', id) };
    this.users.set(login.toLowerCase(), user);
    return user;
  }

  addInstallation(options: FakeInstallationOptions): Installation {
    const account: Installation['account'] = options.enterprise
      ? {
          kind: 'enterprise',
          enterprise: {
            slug: options.account,
            name: options.account,
            id: this.nextEnterpriseId,
            nodeId: nodeId('E', this.nextEnterpriseId++),
          },
        }
      : { kind: 'user', user: this.addUser(options.account) };
    const owner = account.kind === 'user' ? account.user.login : account.enterprise.slug;
    const installation: Installation = {
      id: this.nextInstallationId++,
      account,
      repos: [],
      users: new Set((options.users ?? [owner]).map((login) => this.addUser(login).login)),
      createdAt: new Date().toISOString(),
    };
    for (const spec of options.repos) {
      const fullName = `${owner}/${spec.name}`;
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
    return installation;
  }

  /** The "browser user" behind the authorize and install pages. */
  actingUser(): FakeGitHubUser {
    if (this.actingLogin) return this.addUser(this.actingLogin);
    const first = this.users.values().next();
    return first.done ? this.addUser('octocat') : first.value;
  }

  userByLogin(login: string): FakeGitHubUser | undefined {
    return this.users.get(login.toLowerCase());
  }

  // ---- numbering -------------------------------------------------------------------------

  takeNumber(repoFullName: string): number {
    const number = this.nextNumber.get(repoFullName) ?? 1;
    this.nextNumber.set(repoFullName, number + 1);
    return number;
  }

  openPullRequest(repoFullName: string): PullRequest {
    const number = this.takeNumber(repoFullName);
    const id = this.nextIssueId++;
    const pull: PullRequest = {
      id,
      nodeId: nodeId('PR', id),
      number,
      htmlUrl: `${this.webUrl}/${repoFullName}/pull/${number}`,
      repoFullName,
      state: 'OPEN',
    };
    this.pulls.push(pull);
    return pull;
  }

  // ---- authentication --------------------------------------------------------------------

  /** Who a bearer token belongs to; 401 for a missing, unknown, expired or revoked token. */
  authenticate(request: RecordedRequest): Caller {
    const token = bearerToken(request.headers);
    if (!token) refuse(401, 'Requires authentication');
    const now = Date.now();
    const installationToken = this.installationTokens.get(token);
    if (installationToken) {
      const installation = this.installations.get(installationToken.installationId);
      if (installation && installationToken.expiresAt > now) {
        return { kind: 'installation', installation };
      }
      refuse(401, 'Bad credentials');
    }
    const userToken = this.userTokens.get(token);
    const user = userToken && this.users.get(userToken.login.toLowerCase());
    if (!userToken || !user || userToken.revoked || userToken.expiresAt <= now) {
      refuse(401, 'Bad credentials');
    }
    return { kind: 'user', user };
  }

  requireUser(request: RecordedRequest): FakeGitHubUser {
    const caller = this.authenticate(request);
    if (caller.kind !== 'user') refuse(403, 'Resource not accessible by integration');
    return caller.user;
  }

  requireInstallation(request: RecordedRequest): Installation {
    const caller = this.authenticate(request);
    if (caller.kind !== 'installation') {
      refuse(403, 'You must authenticate with an installation access token to use this endpoint.');
    }
    return caller.installation;
  }

  /** A repo the user may use: some installation that has it lists the user. */
  repoVisibleTo(user: FakeGitHubUser, repoFullName: string): FakeRepo | undefined {
    const entry = this.reposByName.get(repoFullName.toLowerCase());
    return entry?.installation.users.has(user.login) ? entry.repo : undefined;
  }

  /** A repo the caller may read: the installation that holds it, or a user it lists. */
  repoVisibleToCaller(caller: Caller, repoFullName: string): FakeRepo | undefined {
    const entry = this.reposByName.get(repoFullName.toLowerCase());
    if (!entry) return undefined;
    if (caller.kind === 'installation') {
      return entry.installation === caller.installation ? entry.repo : undefined;
    }
    return this.repoVisibleTo(caller.user, repoFullName);
  }

  createInstallationToken(installationId: number): { token: string; expiresAt: number } {
    const token = `ghs_${randomHex(18)}`;
    const expiresAt = Date.now() + INSTALLATION_TOKEN_TTL_MS;
    this.installationTokens.set(token, { installationId, expiresAt });
    return { token, expiresAt };
  }

  issueUserTokens(login: string): Record<string, unknown> {
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
      accessToken,
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

  verifyAppJwt(jwt: string): boolean {
    return verifyAppJwt(jwt, this.publicKey, this.appId);
  }
}

/**
 * Verifies a GitHub App JWT as GitHub does: RS256 signed by the App's key, issued by the App,
 * unexpired, at most ~10 minutes long, and not issued in the future (with a little clock skew).
 */
export function verifyAppJwt(jwt: string, publicKey: crypto.KeyObject, appId: string): boolean {
  const parts = jwt.split('.');
  if (parts.length !== 3) return false;
  const [header = '', payload = '', signature = ''] = parts;
  const head = parseJson(Buffer.from(header, 'base64url').toString('utf8'));
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
  const claims = parseJson(Buffer.from(payload, 'base64url').toString('utf8'));
  if (!claims) return false;
  const { iss, exp, iat } = claims;
  const now = Math.floor(Date.now() / 1000);
  const issuedByApp = (typeof iss === 'string' || typeof iss === 'number') && String(iss) === appId;
  const fresh = typeof exp === 'number' && exp > now && exp <= now + JWT_MAX_LIFETIME_SECONDS;
  const notFuture = typeof iat === 'number' && iat <= now + JWT_CLOCK_SKEW_SECONDS;
  return issuedByApp && fresh && notFuture;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
