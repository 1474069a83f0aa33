import { describe, expect, it } from 'vitest';
import { schema as githubSchema } from '@octokit/graphql-schema';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  Kind,
  parse,
  type GraphQLNamedType,
} from 'graphql';
import { GITHUB_SDL, OpenApi, PREVIEW_SDL } from '../src/fake-github/index.js';

/**
 * The checks that keep the fake GitHub honest: its REST answers against GitHub's OpenAPI
 * description (`@octokit/openapi`), its GraphQL schema against GitHub's published one
 * (`@octokit/graphql-schema`).
 */
describe("GitHub's OpenAPI description as the fake's checker", () => {
  const api = OpenApi.load();
  const getTask = api.operation('GET /agents/repos/{owner}/{repo}/tasks/{task_id}')!;
  const now = new Date().toISOString();
  const documented = {
    id: 'a1b2c3d4',
    state: 'completed',
    created_at: now,
    artifacts: [{ provider: 'github', type: 'pull', data: { id: 42, global_id: 'PR_kwDO' } }],
    sessions: [
      { id: 's1', state: 'failed', created_at: now, error: { message: 'the tests failed' } },
    ],
  };

  it('knows the agent-task operations Ferry calls', () => {
    expect(getTask.operationId).toBe('agent-tasks/get-task-by-repo-and-id');
    expect(api.operation('GET /agents/repos/{owner}/{repo}/tasks')?.operationId).toBe(
      'agent-tasks/list-tasks-for-repo',
    );
    expect(api.operation('GET /not/an/endpoint')).toBeUndefined();
  });

  it('passes an answer in the documented shape', () => {
    expect(api.checkResponse(getTask, 200, documented)).toEqual([]);
  });

  it('fails an answer with a field the description does not have', () => {
    // What the fake used to answer: a `prompt` on the task, a PR URL and number in the artifact.
    expect(api.checkResponse(getTask, 200, { ...documented, prompt: 'Fix it' })).toEqual([
      `200 body: field "prompt" is not in GitHub's description`,
    ]);
    const withUrl = {
      ...documented,
      artifacts: [
        {
          provider: 'github',
          type: 'pull',
          data: { id: 42, number: 7, html_url: 'https://github.com/o/r/pull/7' },
        },
      ],
    };
    expect(api.checkResponse(getTask, 200, withUrl)).toEqual(
      expect.arrayContaining([
        `200 body/artifacts/0/data: field "html_url" is not in GitHub's description`,
        `200 body/artifacts/0/data: field "number" is not in GitHub's description`,
      ]),
    );
    // A top-level error: GitHub puts a failure's reason on the session.
    expect(api.checkResponse(getTask, 200, { ...documented, error: { message: 'x' } })).toEqual([
      `200 body: field "error" is not in GitHub's description`,
    ]);
  });

  it('fails an answer that omits a required field, or has a wrong type or value', () => {
    const { created_at: _omitted, ...withoutCreatedAt } = documented;
    expect(api.checkResponse(getTask, 200, withoutCreatedAt)).toEqual([
      '200 body: required field "created_at" is missing',
    ]);
    expect(api.checkResponse(getTask, 200, { ...documented, state: 'done' })).toEqual([
      '200 body/state: must be equal to one of the allowed values',
    ]);
    expect(api.checkResponse(getTask, 200, { ...documented, created_at: 'yesterday' })).toEqual([
      '200 body/created_at: must match format "date-time"',
    ]);
  });

  it('closes objects reached through $ref, allOf and oneOf alike', () => {
    const installations = api.operation('GET /user/installations')!;
    const user = api.checkSchema('simple-user', {});
    expect(user).toContain('simple-user: required field "login" is missing');
    // An enterprise account has no login; a user account with an enterprise's fields is neither.
    const enterprise = {
      id: 1,
      node_id: 'E_1',
      name: 'Acme',
      slug: 'acme',
      html_url: 'https://github.com/enterprises/acme',
      avatar_url: 'https://avatars.example/1',
      created_at: now,
      updated_at: now,
    };
    expect(api.checkSchema('enterprise', enterprise)).toEqual([]);
    expect(api.checkSchema('enterprise', { ...enterprise, login: 'acme' })).toEqual([
      `enterprise: field "login" is not in GitHub's description`,
    ]);
    expect(api.checkResponse(installations, 200, { total_count: 0, installations: [] })).toEqual(
      [],
    );
  });

  it('checks requests: parameters, the body, and fields the operation does not take', () => {
    const create = api.operation('POST /agents/repos/{owner}/{repo}/tasks')!;
    const params = { owner: 'acme', repo: 'shop' };
    expect(
      api.checkRequest(create, {
        params,
        query: {},
        body: { prompt: 'Fix it', base_ref: 'main', create_pull_request: true },
      }),
    ).toEqual([]);
    expect(
      api.checkRequest(create, { params, query: {}, body: { base_ref: 'main', draft: true } }),
    ).toEqual([
      'body: required field "prompt" is missing',
      `body: field "draft" is not in GitHub's description`,
    ]);
    const list = api.operation('GET /agents/repos/{owner}/{repo}/tasks')!;
    expect(
      api.checkRequest(list, {
        params,
        query: { per_page: '500', sort: 'created_at', since: 'now', state: 'all' },
        body: undefined,
      }),
    ).toEqual([
      'query parameter per_page: must be <= 100',
      'query parameter since: must match format "date-time"',
    ]);
    expect(api.checkRequest(list, { params, query: { prompt: 'x' }, body: undefined })).toEqual([
      'query parameter prompt is not one agent-tasks/list-tasks-for-repo takes',
    ]);
  });

  it('has no agent_assignment on the REST assignment, so Ferry assigns the agent over GraphQL', () => {
    // The coding-agent docs (PREVIEW_DOCS) offer two assignments: GraphQL's
    // replaceActorsForAssignable with agentAssignment, and POST .../issues/{n}/assignees with
    // `copilot-swe-agent[bot]` and `agent_assignment`. The published description's
    // issues/add-assignees does not take that field (in @octokit/openapi 23.0.2), so the fake
    // could not check such a request; Ferry keeps the GraphQL one, whose preview fields the fake's
    // schema takes from the same page. When this fails, GitHub has published the field, and the
    // REST path can be weighed again.
    const assign = api.operation('POST /repos/{owner}/{repo}/issues/{issue_number}/assignees')!;
    const params = { owner: 'acme', repo: 'shop', issue_number: '7' };
    expect(
      api.checkRequest(assign, {
        params,
        query: {},
        body: { assignees: ['copilot-swe-agent[bot]'] },
      }),
    ).toEqual([]);
    expect(
      api.checkRequest(assign, {
        params,
        query: {},
        body: {
          assignees: ['copilot-swe-agent[bot]'],
          agent_assignment: { target_repo: 'acme/shop', base_branch: 'main' },
        },
      }),
    ).toEqual([`body: field "agent_assignment" is not in GitHub's description`]);
  });
});

describe("the fake's GraphQL schema", () => {
  const github = buildSchema(githubSchema.idl, { assumeValidSDL: true });
  const fake = buildSchema(`${GITHUB_SDL}\n${PREVIEW_SDL}`);
  const preview = parse(PREVIEW_SDL);
  const previewTypes = new Set<string>();
  const previewFields = new Set<string>();
  for (const definition of preview.definitions) {
    if (!('name' in definition) || !definition.name) continue;
    if (definition.kind === Kind.OBJECT_TYPE_EXTENSION) {
      for (const field of definition.fields ?? []) {
        previewFields.add(`${definition.name.value}.${field.name.value}`);
      }
    } else {
      previewTypes.add(definition.name.value);
    }
  }

  it("is a part of GitHub's published schema, but for the preview fields the docs name", () => {
    const problems: string[] = [];
    for (const type of Object.values(fake.getTypeMap())) {
      if (type.name.startsWith('__') || previewTypes.has(type.name)) continue;
      const real: GraphQLNamedType | undefined = github.getType(type.name);
      if (!real) {
        problems.push(`${type.name} is not in GitHub's schema`);
        continue;
      }
      if (real.constructor !== type.constructor) problems.push(`${type.name} is another kind`);
      if (
        (isObjectType(type) || isInterfaceType(type)) &&
        (isObjectType(real) || isInterfaceType(real))
      ) {
        const realInterfaces = real.getInterfaces().map((i) => i.name);
        for (const implemented of type.getInterfaces()) {
          if (!realInterfaces.includes(implemented.name)) {
            problems.push(`${type.name} does not implement ${implemented.name} on GitHub`);
          }
        }
        const realFields = real.getFields();
        for (const field of Object.values(type.getFields())) {
          if (previewFields.has(`${type.name}.${field.name}`)) continue;
          const twin = realFields[field.name];
          if (!twin) {
            problems.push(`${type.name}.${field.name} is not in GitHub's schema`);
            continue;
          }
          if (String(twin.type) !== String(field.type)) {
            problems.push(
              `${type.name}.${field.name}: ${String(field.type)}, GitHub ${String(twin.type)}`,
            );
          }
          for (const arg of field.args) {
            const realArg = twin.args.find((a) => a.name === arg.name);
            if (!realArg || String(realArg.type) !== String(arg.type)) {
              problems.push(`${type.name}.${field.name}(${arg.name}) differs from GitHub's`);
            }
          }
          // Arguments GitHub requires must be required here too.
          for (const realArg of twin.args) {
            if (
              String(realArg.type).endsWith('!') &&
              !field.args.some((a) => a.name === realArg.name)
            ) {
              problems.push(`${type.name}.${field.name} lacks GitHub's required ${realArg.name}`);
            }
          }
        }
      }
      if (isUnionType(type) && isUnionType(real)) {
        const members = real.getTypes().map((t) => t.name);
        for (const member of type.getTypes()) {
          if (!members.includes(member.name))
            problems.push(`${member.name} is not in ${type.name}`);
        }
      }
      if (isEnumType(type) && isEnumType(real)) {
        const values = real.getValues().map((v) => v.name);
        for (const value of type.getValues()) {
          if (!values.includes(value.name))
            problems.push(`${type.name}.${value.name} is not GitHub's`);
        }
      }
      if (isInputObjectType(type)) problems.push(`${type.name}: input types belong in the preview`);
    }
    expect(problems).toEqual([]);
    // Not silently empty: the published part covers what Ferry reads.
    expect(getNamedType(fake.getQueryType()!.getFields().node!.type).name).toBe('Node');
  });

  it('adds only what GitHub has not published: each preview type and field is new to it', () => {
    for (const name of previewTypes) expect(github.getType(name)).toBeUndefined();
    for (const key of previewFields) {
      const [typeName, fieldName] = key.split('.') as [string, string];
      const type = github.getType(typeName);
      expect(type && isObjectType(type) ? type.getFields()[fieldName] : undefined).toBeUndefined();
    }
    expect([...previewFields].sort()).toEqual([
      'Mutation.replaceActorsForAssignable',
      'Repository.suggestedActors',
    ]);
  });
});
