import {
  buildSchema,
  graphql as runGraphql,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
} from 'graphql';
import { isRecord, stringField, type Reply } from './http.js';
import type { FakeState, IssueState, PullRequest } from './state.js';
import { COPILOT_BOT, type FakeGitHubUser, type RecordedRequest } from './types.js';

/**
 * The fake's GraphQL API: a part of GitHub's schema (every type and field below is GitHub's own,
 * as `@octokit/graphql-schema` publishes it; a test in packages/testing checks that), plus the
 * public-preview fields GitHub's schema does not publish yet. Requests are parsed, validated and
 * executed by the `graphql` package, so documents, fragments and variables of any name work as
 * they do on GitHub, and a document GitHub would reject is rejected here.
 */

/**
 * Public preview, not in the published schema: as "Using Copilot cloud agent via the API"
 * (docs.github.com/copilot/how-tos/use-copilot-agents/cloud-agent/use-cloud-agent-via-the-api,
 * read 2026-11-25) shows them: `suggestedActors` to find the agent's bot id, and
 * `replaceActorsForAssignable` with `agentAssignment`, which needs the `GraphQL-Features` header
 * with both features below.
 */
export const PREVIEW_DOCS =
  'docs.github.com/copilot/how-tos/use-copilot-agents/cloud-agent/use-cloud-agent-via-the-api (read 2026-11-25)';
export const COPILOT_ASSIGNMENT_FEATURES = [
  'issues_copilot_assignment_api_support',
  'coding_agent_model_selection',
] as const;

/** The published part: each type, field, argument and enum value as GitHub's schema has it. */
export const GITHUB_SDL = /* GraphQL */ `
  scalar URI
  scalar DateTime

  interface Node {
    id: ID!
  }

  interface Actor {
    login: String!
  }

  interface Assignable {
    assignees(after: String, before: String, first: Int, last: Int): UserConnection!
  }

  type Query {
    repository(followRenames: Boolean = true, name: String!, owner: String!): Repository
    node(id: ID!): Node
  }

  type Mutation

  type Repository implements Node {
    id: ID!
    name: String!
    nameWithOwner: String!
    url: URI!
    issue(number: Int!): Issue
  }

  type User implements Actor & Node {
    id: ID!
    login: String!
  }

  type Bot implements Actor & Node {
    id: ID!
    login: String!
  }

  type UserConnection {
    nodes: [User]
    totalCount: Int!
  }

  type Issue implements Assignable & Node {
    id: ID!
    number: Int!
    title: String!
    url: URI!
    assignees(after: String, before: String, first: Int, last: Int): UserConnection!
    timelineItems(
      after: String
      before: String
      first: Int
      itemTypes: [IssueTimelineItemsItemType!]
      last: Int
      since: DateTime
      skip: Int
    ): IssueTimelineItemsConnection!
  }

  enum IssueTimelineItemsItemType {
    CROSS_REFERENCED_EVENT
    CONNECTED_EVENT
  }

  union IssueTimelineItems = CrossReferencedEvent

  type IssueTimelineItemsConnection {
    nodes: [IssueTimelineItems]
    totalCount: Int!
  }

  type CrossReferencedEvent implements Node {
    id: ID!
    source: ReferencedSubject!
    willCloseTarget: Boolean!
  }

  union ReferencedSubject = Issue | PullRequest

  enum PullRequestState {
    CLOSED
    MERGED
    OPEN
  }

  type PullRequest implements Node {
    id: ID!
    number: Int!
    title: String!
    url: URI!
    state: PullRequestState!
    merged: Boolean!
  }
`;

/**
 * The preview part (PREVIEW_DOCS), as the docs page's queries use it: new types, and fields added
 * to GitHub's own types with `extend`, so it applies to GitHub's published schema as it is.
 */
export const PREVIEW_SDL = /* GraphQL */ `
  enum RepositorySuggestedActorFilter {
    CAN_BE_ASSIGNED
    CAN_BE_AUTHOR
  }

  type ActorConnection {
    nodes: [Actor]
  }

  extend type Repository {
    suggestedActors(
      capabilities: [RepositorySuggestedActorFilter!]!
      first: Int
      after: String
      query: String
    ): ActorConnection!
  }

  input AgentAssignmentInput {
    targetRepositoryId: ID
    baseRef: String
    customInstructions: String
    customAgent: String
    model: String
  }

  input ReplaceActorsForAssignableInput {
    clientMutationId: String
    assignableId: ID!
    actorIds: [ID!]!
    agentAssignment: AgentAssignmentInput
  }

  type ReplaceActorsForAssignablePayload {
    clientMutationId: String
    assignable: Assignable
  }

  extend type Mutation {
    replaceActorsForAssignable(
      input: ReplaceActorsForAssignableInput!
    ): ReplaceActorsForAssignablePayload
  }
`;

let schema: GraphQLSchema | undefined;

export function fakeSchema(): GraphQLSchema {
  schema ??= buildSchema(`${GITHUB_SDL}\n${PREVIEW_SDL}`);
  return schema;
}

/** A resolver's refusal, rendered as GitHub renders it (`type` beside `message`). */
class GitHubGraphqlError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

interface Context {
  state: FakeState;
  user: FakeGitHubUser;
  request: RecordedRequest;
}

export async function answerGraphql(state: FakeState, request: RecordedRequest): Promise<Reply> {
  const caller = state.authenticate(request);
  if (caller.kind !== 'user') {
    return gqlErrors([{ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }]);
  }
  if (!isRecord(request.body)) return { status: 400, json: { message: 'Problems parsing JSON' } };
  const source = stringField(request.body, 'query');
  if (!source) {
    return gqlErrors([{ message: 'A query attribute must be specified and must be a string.' }]);
  }
  const variables = isRecord(request.body.variables) ? request.body.variables : {};
  const context: Context = { state, user: caller.user, request };
  const result: ExecutionResult = await runGraphql({
    schema: fakeSchema(),
    source,
    rootValue: rootResolvers,
    contextValue: context,
    variableValues: variables,
    operationName: stringField(request.body, 'operationName') ?? null,
  });
  const json: Record<string, unknown> = {};
  if ('data' in result) json.data = result.data;
  if (result.errors?.length) json.errors = result.errors.map(renderError);
  return { status: 200, json };
}

function renderError(error: GraphQLError): Record<string, unknown> {
  const original = error.originalError;
  return {
    ...(original instanceof GitHubGraphqlError ? { type: original.type } : {}),
    ...(error.path ? { path: error.path } : {}),
    ...(error.locations ? { locations: error.locations } : {}),
    message: error.message,
  };
}

function gqlErrors(errors: Array<Record<string, unknown>>): Reply {
  return { status: 200, json: { errors } };
}

const rootResolvers = {
  repository(args: { owner: string; name: string }, context: Context) {
    const fullName = `${args.owner}/${args.name}`;
    const repo = context.state.repoVisibleTo(context.user, fullName);
    if (!repo) {
      throw new GitHubGraphqlError(
        'NOT_FOUND',
        `Could not resolve to a Repository with the name '${fullName}'.`,
      );
    }
    return repositoryNode(context, repo.fullName);
  },

  node(args: { id: string }, context: Context) {
    const found = findNode(context, args.id);
    if (!found) {
      throw new GitHubGraphqlError(
        'NOT_FOUND',
        `Could not resolve to a node with the global id of '${args.id}'`,
      );
    }
    return found;
  },

  replaceActorsForAssignable(
    args: {
      input: {
        assignableId: string;
        actorIds: string[];
        agentAssignment?: { targetRepositoryId?: string | null } | null;
      };
    },
    context: Context,
  ) {
    const { state, user, request } = context;
    const { input } = args;
    if (input.agentAssignment) {
      const features = (request.headers['graphql-features'] ?? '').split(',').map((f) => f.trim());
      const missing = COPILOT_ASSIGNMENT_FEATURES.filter((f) => !features.includes(f));
      if (missing.length) {
        throw new GitHubGraphqlError(
          'FORBIDDEN',
          `agentAssignment requires the GraphQL-Features header with ${COPILOT_ASSIGNMENT_FEATURES.join(',')} (missing: ${missing.join(',')})`,
        );
      }
    }
    const found = state.issueStates.find(({ issue }) => issue.nodeId === input.assignableId);
    if (!found || !state.repoVisibleTo(user, found.issue.repoFullName)) {
      throw nodeNotFound(input.assignableId);
    }
    const logins: string[] = [];
    for (const actorId of input.actorIds) {
      const login =
        actorId === COPILOT_BOT.id
          ? COPILOT_BOT.login
          : [...state.users.values()].find((u) => u.nodeId === actorId)?.login;
      if (!login) throw nodeNotFound(actorId);
      logins.push(login);
    }
    const target = input.agentAssignment?.targetRepositoryId;
    if (target && ![...state.reposByName.values()].some(({ repo }) => repo.nodeId === target)) {
      throw nodeNotFound(target);
    }
    const { issue } = found;
    const copilotWasAssigned = issue.assignees.includes(COPILOT_BOT.login);
    issue.assignees = logins;
    // Assigning Copilot starts the scripted timeline; unassigning it forgets the walk.
    if (!logins.includes(COPILOT_BOT.login)) found.walk = undefined;
    else if (!copilotWasAssigned) found.walk = { steps: [...state.assignmentSteps], index: -1 };
    return { assignable: issueNode(context, found) };
  },
};

function nodeNotFound(id: string): GitHubGraphqlError {
  return new GitHubGraphqlError(
    'NOT_FOUND',
    `Could not resolve to a node with the global id of '${id}'`,
  );
}

function findNode(context: Context, id: string): Record<string, unknown> | undefined {
  const { state, user } = context;
  const pull = state.pulls.find((p) => p.nodeId === id);
  if (pull) return state.repoVisibleTo(user, pull.repoFullName) ? pullNode(pull) : undefined;
  const issue = state.issueStates.find((s) => s.issue.nodeId === id);
  if (issue) {
    return state.repoVisibleTo(user, issue.issue.repoFullName)
      ? issueNode(context, issue)
      : undefined;
  }
  const repo = [...state.reposByName.values()].find((entry) => entry.repo.nodeId === id);
  if (repo) {
    return state.repoVisibleTo(user, repo.repo.fullName)
      ? repositoryNode(context, repo.repo.fullName)
      : undefined;
  }
  const other = [...state.users.values()].find((u) => u.nodeId === id);
  return other ? { __typename: 'User', id: other.nodeId, login: other.login } : undefined;
}

function repositoryNode(context: Context, fullName: string): Record<string, unknown> {
  const { state, user } = context;
  const entry = state.reposByName.get(fullName.toLowerCase())!;
  return {
    __typename: 'Repository',
    id: entry.repo.nodeId,
    name: entry.repo.name,
    nameWithOwner: entry.repo.fullName,
    url: `${state.webUrl}/${entry.repo.fullName}`,
    issue: (args: { number: number }) => {
      const found = state.issueStates.find(
        ({ issue }) => issue.repoFullName === entry.repo.fullName && issue.number === args.number,
      );
      if (!found) {
        throw new GitHubGraphqlError(
          'NOT_FOUND',
          `Could not resolve to an Issue with the number of ${args.number}.`,
        );
      }
      return issueNode(context, found);
    },
    suggestedActors: () => ({
      nodes: [
        { __typename: 'Bot', login: COPILOT_BOT.login, id: COPILOT_BOT.id },
        { __typename: 'User', login: user.login, id: user.nodeId },
      ],
    }),
  };
}

function issueNode(context: Context, found: IssueState): Record<string, unknown> {
  const { state } = context;
  const { issue } = found;
  const assignees = issue.assignees.map((login) =>
    login === COPILOT_BOT.login
      ? { id: COPILOT_BOT.id, login }
      : { id: state.userByLogin(login)?.nodeId ?? login, login },
  );
  return {
    __typename: 'Issue',
    id: issue.nodeId,
    number: issue.number,
    title: issue.title,
    url: issue.htmlUrl,
    assignees: () => ({ nodes: assignees, totalCount: assignees.length }),
    timelineItems: () => {
      const nodes = timelineStep(state, found);
      return { nodes, totalCount: nodes.length };
    },
  };
}

function pullNode(pull: PullRequest): Record<string, unknown> {
  return {
    __typename: 'PullRequest',
    id: pull.nodeId,
    number: pull.number,
    title: `Fix #${pull.number}`,
    url: pull.htmlUrl,
    state: pull.state,
    merged: pull.state === 'MERGED',
  };
}

/** Advances the issue's scripted walk one step and renders it as timeline nodes. */
function timelineStep(state: FakeState, found: IssueState): unknown[] {
  const walk = found.walk;
  if (!walk) return [];
  walk.index = Math.min(walk.index + 1, walk.steps.length - 1);
  const step = walk.steps[walk.index] ?? 'none';
  if (step === 'none') return [];
  walk.pr ??= state.openPullRequest(found.issue.repoFullName);
  if (step === 'merged') walk.pr.state = 'MERGED';
  return [
    {
      __typename: 'CrossReferencedEvent',
      id: `CRE_${walk.pr.nodeId}`,
      willCloseTarget: true,
      source: pullNode(walk.pr),
    },
  ];
}
