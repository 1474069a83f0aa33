export {
  ReauthorizeError,
  findAuthorization,
  listAuthorizedMembers,
  removeAuthorization,
  saveAuthorization,
  userTokenFor,
} from './authorizations.js';
export type { AuthorizedMember } from './authorizations.js';
export {
  CODING_AGENT_LOGIN,
  COPILOT_GRAPHQL_FEATURES,
  GRAPHQL_DOCUMENTS,
  createGitHubClient,
} from './client.js';
export type {
  AgentTask,
  GitHubClient,
  GitHubClientOptions,
  GitHubCreatedTask,
  GitHubInstallation,
  GitHubIssue,
  GitHubRepository,
  GitHubTask,
  GitHubTaskListItem,
  GitHubUser,
  InstallationRepo,
  PullRequestRef,
  UserTokens,
} from './client.js';
export { GITHUB_APP_VARIABLES, loadGithubSettings } from './config.js';
export type { GithubApp, GithubSettings } from './config.js';
export { dispatchRequestSchema, findDispatch, requestDispatch } from './dispatches.js';
export type { DispatchStarter } from './dispatches.js';
export { GitHubError, rateLimitWait } from './errors.js';
export type { GitHubErrorKind } from './errors.js';
export { dispatchIdentity, setDispatchIdentity } from './identity.js';
export {
  dispatchReady,
  findInstallation,
  findRepo,
  listRepos,
  recordInstallation,
  repoJson,
  repoJsonSchema,
  setRepoSwitches,
  syncRepos,
} from './installations.js';
export type { RepoJson } from './installations.js';
