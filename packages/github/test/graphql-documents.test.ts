import { describe, expect, it } from 'vitest';
import { PREVIEW_DOCS, PREVIEW_SDL } from '@ferry/testing/fake-github';
import { schema as githubSchema } from '@octokit/graphql-schema';
import { buildSchema, extendSchema, parse, validate } from 'graphql';
import { GRAPHQL_DOCUMENTS } from '../src/index.js';

/**
 * Every GraphQL document the client sends, validated against GitHub's published schema
 * (`@octokit/graphql-schema`) extended with the public-preview fields of the coding-agent docs
 * (PREVIEW_DOCS): a field GitHub does not have, a wrong argument or type fails here.
 */
describe("the client's GraphQL documents", () => {
  const published = buildSchema(githubSchema.idl, { assumeValidSDL: true });
  const withPreview = extendSchema(published, parse(PREVIEW_SDL), { assumeValidSDL: true });

  it.each(Object.entries(GRAPHQL_DOCUMENTS))('%s is valid on GitHub', (_name, document) => {
    expect(validate(withPreview, parse(document)).map((e) => e.message)).toEqual([]);
  });

  it('needs the preview only for the assignment, which the docs page describes', () => {
    expect(PREVIEW_DOCS).toMatch(/use-cloud-agent-via-the-api \(read \d{4}-\d{2}-\d{2}\)/);
    const needsPreview = Object.entries(GRAPHQL_DOCUMENTS)
      .filter(([, document]) => validate(published, parse(document)).length > 0)
      .map(([name]) => name);
    expect(needsPreview.sort()).toEqual(['assignCodingAgent', 'assignableActors']);
  });
});
