/** The fake GitHub's public shapes: what tests seed, script and inspect. */

export interface FakeGitHubUser {
  login: string;
  id: number;
  nodeId: string;
}

/** An enterprise account: GitHub shows it as an installation's `account` with no `login`. */
export interface FakeEnterprise {
  slug: string;
  name: string;
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
  /** The REST operation it reached, as `METHOD /path/{template}` (GitHub's description's key). */
  operation?: string;
  /** Where the request differs from GitHub's description of its operation (empty: it does not). */
  problems?: string[];
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
  /** A user or organization login; or, with `enterprise`, the enterprise's slug. */
  account: string;
  /** The account is an enterprise (GitHub lists it without a `login`). */
  enterprise?: boolean;
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
  createdAt: string;
}

/** The Copilot coding agent as GitHub's GraphQL API names it among an issue's suggested actors. */
export const COPILOT_BOT = { login: 'copilot-swe-agent', id: 'BOT_kgDOC9w8XQ' } as const;
