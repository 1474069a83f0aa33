import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { access, declaredRoutes, openApiDocument, routeTable } from '../src/index.js';

const info = { title: 'T', version: 'v1', description: 'd', serverUrl: 'http://localhost' };
const open = access.public('a test route');

/**
 * Issue 46: schemas named with `.meta({ id })` are described once under components.schemas and
 * referred to everywhere. A schema that reads differently as a request (a default makes a field
 * optional) than as an answer gets a second component, `<id>Input`, and each side refers to its
 * own; one that reads the same either way is one component. Splits spread to a schema that
 * refers to a split one.
 */
describe('OpenAPI components from named schemas', () => {
  // An object never reads the same: a request may carry keys zod strips, an answer has none.
  const same = z.enum(['small', 'large']).meta({ id: 'TestSame' });
  const defaulted = z.object({ size: z.number().default(1) }).meta({ id: 'TestDefaulted' });
  const holder = z.object({ inner: defaulted }).meta({ id: 'TestHolder' });
  const table = routeTable();
  const doc = (body: z.ZodType, answer: z.ZodType) => ({
    access: open,
    doc: {
      summary: 's',
      tag: 't',
      security: 'none' as const,
      body,
      responses: { 200: { description: 'ok', schema: answer } },
    },
  });
  table.post('/same', doc(same, same), () => undefined);
  table.post('/defaulted', doc(defaulted, defaulted), () => undefined);
  table.post('/holder', doc(holder, holder), () => undefined);
  const document = openApiDocument(declaredRoutes([{ base: '/', table }]), info) as {
    paths: Record<string, { post: Record<string, unknown> }>;
    components: {
      schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
    };
  };
  const refs = (path: string) => {
    const op = document.paths[path]!.post as {
      requestBody: { content: { 'application/json': { schema: unknown } } };
      responses: { 200: { content: { 'application/json': { schema: unknown } } } };
    };
    return {
      request: op.requestBody.content['application/json'].schema,
      answer: op.responses[200].content['application/json'].schema,
    };
  };
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  it('describes a schema that reads the same both ways once', () => {
    expect(refs('/same')).toEqual({ request: ref('TestSame'), answer: ref('TestSame') });
    expect(document.components.schemas.TestSameInput).toBeUndefined();
  });

  it('splits one whose request form differs, each side referring to its own', () => {
    expect(refs('/defaulted')).toEqual({
      request: ref('TestDefaultedInput'),
      answer: ref('TestDefaulted'),
    });
    expect(document.components.schemas.TestDefaulted!.required).toEqual(['size']);
    expect(document.components.schemas.TestDefaultedInput!.required).toBeUndefined();
  });

  it('splits a schema that refers to a split one, though its own fields read the same', () => {
    expect(refs('/holder')).toEqual({ request: ref('TestHolderInput'), answer: ref('TestHolder') });
    expect(document.components.schemas.TestHolderInput!.properties!.inner).toEqual(
      ref('TestDefaultedInput'),
    );
    expect(document.components.schemas.TestHolder!.properties!.inner).toEqual(ref('TestDefaulted'));
  });
});
