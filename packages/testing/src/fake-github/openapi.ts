import fs from 'node:fs';
import { createRequire } from 'node:module';
import Ajv2019Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2019.js';
import addFormatsModule from 'ajv-formats';

/**
 * GitHub's own REST description (the `@octokit/openapi` package: api.github.com, OpenAPI 3.0),
 * as a strict checker for the fake GitHub's answers and for the requests it receives.
 *
 * GitHub's schemas list properties without closing objects, so as written they accept any extra
 * field. Here every object is closed (`unevaluatedProperties: false`, which sees through allOf,
 * oneOf and $ref), OpenAPI's `nullable` becomes JSON Schema's null, and the result goes to ajv
 * (draft 2019-09). An answer with a field GitHub does not describe, or without a required one, or
 * with a wrong type or format, fails; so does a request whose parameters or body GitHub would not
 * take.
 */

export const OPENAPI_PACKAGE = '@octokit/openapi';
export const OPENAPI_FILE = 'generated/api.github.com.json';

type Json = Record<string, unknown>;

interface Document {
  info: { version: string };
  paths: Record<string, Record<string, Json>>;
  components: Record<string, Record<string, Json>>;
}

export interface Operation {
  /** `GET /repos/{owner}/{repo}/issues`: the key the fake's routes use. */
  key: string;
  method: string;
  template: string;
  operationId: string;
  docsUrl: string | undefined;
  raw: Json;
}

export interface RequestParts {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

// ajv and ajv-formats are CommonJS with a default export; under NodeNext it sits on `.default`.
const Ajv2019 = Ajv2019Module.default;
const addFormats = addFormatsModule.default;

/** Formats GitHub uses that JSON Schema has no checker for: numeric widths, and free text. */
const FREE_FORMATS = ['int32', 'int64', 'double', 'float', 'repo.nwo', 'binary', 'timestamp'];
/** OpenAPI keywords with no meaning for validation. */
const DROPPED = new Set([
  'nullable',
  'example',
  'examples',
  'discriminator',
  'externalDocs',
  'xml',
  'readOnly',
  'writeOnly',
]);

let cached: OpenApi | undefined;

export class OpenApi {
  readonly version: string;
  private readonly ajv: InstanceType<typeof Ajv2019>;
  private readonly validators = new Map<string, ValidateFunction>();
  /** Components already converted and added to ajv. */
  private readonly components = new Set<string>();

  private constructor(private readonly doc: Document) {
    this.version = doc.info.version;
    this.ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    for (const format of FREE_FORMATS) this.ajv.addFormat(format, true);
  }

  /** The description, read once per process (13 MB of JSON: about a tenth of a second). */
  static load(): OpenApi {
    if (!cached) {
      const require = createRequire(import.meta.url);
      const file = require.resolve(`${OPENAPI_PACKAGE}/${OPENAPI_FILE}`);
      cached = new OpenApi(JSON.parse(fs.readFileSync(file, 'utf8')) as Document);
    }
    return cached;
  }

  /** The operation at `METHOD /template`, or undefined when GitHub's description has none. */
  operation(key: string): Operation | undefined {
    const [method = '', template = ''] = key.split(' ');
    const raw = this.doc.paths[template]?.[method.toLowerCase()];
    if (!raw) return undefined;
    const docs = raw.externalDocs as { url?: string } | undefined;
    return {
      key,
      method: method.toUpperCase(),
      template,
      operationId: String(raw.operationId),
      docsUrl: docs?.url,
      raw,
    };
  }

  /**
   * Compiles every check `operation` can need now (a few hundred milliseconds for the larger
   * ones, once per process), so no request waits on it: a client with a short timeout would
   * take a first slow answer for GitHub failing.
   */
  warm(operation: Operation): void {
    for (const status of Object.keys(operation.raw.responses ?? {})) {
      if (/^\d+$/.test(status)) this.checkResponse(operation, Number(status), undefined);
    }
    this.checkResponse(operation, 599, undefined);
    this.checkRequest(operation, { params: {}, query: {}, body: {} });
    for (const raw of (operation.raw.parameters as Json[] | undefined) ?? []) {
      const parameter = this.deref(raw);
      const key = `${operation.key} ${String(parameter.in)}:${String(parameter.name)}`;
      this.validator(key, (parameter.schema ?? {}) as Json);
    }
  }

  /** Problems with a request for `operation`: path and query parameters, and the JSON body. */
  checkRequest(operation: Operation, request: RequestParts): string[] {
    const problems: string[] = [];
    const parameters = ((operation.raw.parameters as Json[] | undefined) ?? []).map((p) =>
      this.deref(p),
    );
    for (const parameter of parameters) {
      const name = String(parameter.name);
      const place = String(parameter.in);
      const where =
        parameter.in === 'path'
          ? request.params
          : parameter.in === 'query'
            ? request.query
            : undefined;
      if (!where) continue;
      const value = where[name];
      if (value === undefined) {
        if (parameter.required) problems.push(`${place} parameter ${name} is required`);
        continue;
      }
      const schema = (parameter.schema ?? {}) as Json;
      const validate = this.validator(`${operation.key} ${place}:${name}`, schema);
      if (!validate(coerce(value, schema))) {
        problems.push(...describe(validate.errors, `${place} parameter ${name}`));
      }
    }
    // Query keys the operation does not take: GitHub ignores them, so a client relying on one
    // would be relying on nothing.
    for (const key of Object.keys(request.query)) {
      if (!parameters.some((p) => p.in === 'query' && p.name === key)) {
        problems.push(`query parameter ${key} is not one ${operation.operationId} takes`);
      }
    }
    const body = operation.raw.requestBody
      ? this.deref(operation.raw.requestBody as Json)
      : undefined;
    if (!body) {
      if (request.body !== undefined && !isEmptyObject(request.body)) {
        problems.push(`${operation.operationId} takes no request body`);
      }
      return problems;
    }
    if (request.body === undefined) {
      if (body.required) problems.push('the request body is required');
      return problems;
    }
    const content = (body.content ?? {}) as Record<string, { schema?: Json }>;
    const schema = content['application/json']?.schema;
    if (!schema) return problems;
    const validate = this.validator(`${operation.key} body`, schema);
    if (!validate(request.body)) problems.push(...describe(validate.errors, 'body'));
    return problems;
  }

  /**
   * Problems with an answer to `operation`. A status the operation describes is checked against
   * its schema; an error status it does not describe against GitHub's `basic-error`; a success
   * status it does not describe is itself a problem.
   */
  checkResponse(operation: Operation, status: number, body: unknown): string[] {
    const responses = (operation.raw.responses ?? {}) as Record<string, Json>;
    const described = responses[String(status)];
    if (!described) {
      if (status < 400) {
        return [`${operation.operationId} does not answer ${status} in GitHub's description`];
      }
      const validate = this.validator('basic-error', { $ref: '#/components/schemas/basic-error' });
      return validate(body) ? [] : describe(validate.errors, `${status} body`);
    }
    const response = this.deref(described);
    const content = (response.content ?? {}) as Record<string, { schema?: Json }>;
    const schema = content['application/json']?.schema;
    if (!schema) {
      return body === undefined
        ? []
        : [`${operation.operationId} ${status} has no body in GitHub's description`];
    }
    const validate = this.validator(`${operation.key} ${status}`, schema);
    return validate(body) ? [] : describe(validate.errors, `${status} body`);
  }

  /** A component schema (`repository`, `simple-user`...) as a closed JSON Schema. */
  checkSchema(component: string, value: unknown): string[] {
    const validate = this.validator(`component ${component}`, {
      $ref: `#/components/schemas/${component}`,
    });
    return validate(value) ? [] : describe(validate.errors, component);
  }

  private validator(key: string, schema: Json): ValidateFunction {
    const known = this.validators.get(key);
    if (known) return known;
    const validate = this.ajv.compile(this.closed(schema));
    this.validators.set(key, validate);
    return validate;
  }

  /**
   * `schema` closed and null-aware. Each component it reaches is converted once and added to ajv
   * under its own id (`gh:NAME`), so the many operations sharing GitHub's large schemas (user,
   * repository, issue) compile them once.
   */
  private closed(schema: Json): Json {
    const convert = (node: unknown, open: boolean): unknown => {
      if (Array.isArray(node)) return node.map((item) => convert(item, open));
      if (!isObject(node)) return node;
      if (typeof node.$ref === 'string') {
        const ref = node.$ref;
        if (!ref.startsWith('#/components/schemas/')) return convert(this.deref(node), open);
        const name = ref.slice('#/components/schemas/'.length);
        const id = `gh:${open ? `${name}~open` : name}`;
        if (!this.components.has(id)) {
          this.components.add(id);
          const converted = convert(this.doc.components.schemas?.[name], open) as Json;
          this.ajv.addSchema({ ...converted, $id: id });
        }
        return { $ref: id };
      }
      const out: Json = {};
      for (const [name, value] of Object.entries(node)) {
        if (DROPPED.has(name) || name.startsWith('x-')) continue;
        if (name === 'properties' && isObject(value)) {
          out.properties = Object.fromEntries(
            Object.entries(value).map(([prop, sub]) => [prop, convert(sub, false)]),
          );
        } else if (name === 'items' || name === 'additionalProperties' || name === 'not') {
          out[name] = convert(value, false);
        } else if (name === 'allOf') {
          out.allOf = (value as unknown[]).map((member) => convert(member, true));
        } else if (name === 'oneOf' || name === 'anyOf') {
          // Alternatives are closed themselves (so exactly one of GitHub's private-user and
          // public-user matches), unless they only add to an object described around them.
          const openMembers = open || 'properties' in node;
          out[name] = (value as unknown[]).map((member) => convert(member, openMembers));
        } else {
          out[name] = value;
        }
      }
      const describesObject = 'properties' in node || 'allOf' in node;
      if (!open && describesObject && node.additionalProperties === undefined) {
        out.unevaluatedProperties = false;
      }
      return node.nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
    };
    return convert(schema, false) as Json;
  }

  private deref(node: Json): Json {
    let current: unknown = node;
    for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 10; hops++) {
      const path = current.$ref.replace(/^#\//, '').split('/');
      current = path.reduce<unknown>(
        (at, part) => (isObject(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
        this.doc,
      );
    }
    return isObject(current) ? current : {};
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEmptyObject(value: unknown): boolean {
  return isObject(value) && Object.keys(value).length === 0;
}

/** A query or path string as the type its schema names (GitHub parses them so). */
function coerce(value: string, schema: Json): unknown {
  const type = schema.type;
  if (type === 'integer' || type === 'number') {
    return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  if (type === 'array') {
    const items = isObject(schema.items) ? schema.items : {};
    return value.split(',').map((part) => coerce(part, items));
  }
  return value;
}

function describe(errors: ErrorObject[] | null | undefined, what: string): string[] {
  return (errors ?? [])
    .filter((error) => error.keyword !== 'anyOf' && error.keyword !== 'oneOf')
    .map((error) => {
      const at = error.instancePath || '';
      if (error.keyword === 'unevaluatedProperties') {
        const extra = String(
          (error.params as { unevaluatedProperty?: string }).unevaluatedProperty,
        );
        return `${what}${at}: field "${extra}" is not in GitHub's description`;
      }
      if (error.keyword === 'required') {
        const missing = String((error.params as { missingProperty?: string }).missingProperty);
        return `${what}${at}: required field "${missing}" is missing`;
      }
      return `${what}${at}: ${error.message ?? error.keyword}`;
    })
    .slice(0, 20);
}
