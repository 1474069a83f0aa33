import { z } from 'zod';
import type { BodyTimeout } from './body-deadline.js';
import type { DeclaredRoute } from './route-table.js';
import { errorBodySchema, type RouteDoc, type RouteSecurity } from './route-doc.js';

/**
 * The OpenAPI 3.1 description of every route that carries a RouteDoc (issue 46), built from the
 * route tables: paths and operations here, schemas by zod's own JSON Schema output (OpenAPI 3.1's
 * schema dialect is JSON Schema 2020-12, which zod writes). Request schemas are described as the
 * caller sends them (`io: 'input'`), answers as Ferry writes them (`io: 'output'`).
 */

/** One outgoing delivery, for OpenAPI 3.1's `webhooks`: what Ferry POSTs to a receiver. */
export interface WebhookDoc {
  summary: string;
  description: string;
  tag: string;
  /** The delivery's JSON body. */
  schema: z.ZodType;
}

/** The headers every signed delivery carries (webhooks-out signing.ts). */
const DELIVERY_HEADERS: Record<string, string> = {
  'webhook-id':
    'Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it).',
  'webhook-timestamp': 'Standard Webhooks: seconds since the epoch when it was signed.',
  'webhook-signature':
    'Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated.',
  'X-Service-Event': 'The event type.',
  'X-Service-Signature': '`sha256=<hex HMAC-SHA256 of the body>` with the current secret.',
  'X-Service-Signature-Previous':
    'During a rotation’s overlap only: the same with the previous secret.',
};

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  /** The server's public URL (PUBLIC_URL). */
  serverUrl: string;
}

type JsonSchema = Record<string, unknown>;

/**
 * The schemes a caller authenticates with. An incoming webhook key travels in the path, which
 * OpenAPI's apiKey cannot express: those operations name no scheme, and their `key` path
 * parameter says it is the credential.
 */
type Scheme = Exclude<RouteSecurity, 'none' | 'webhookKey'>;

const SECURITY_SCHEMES: Record<Scheme, JsonSchema> = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token (`fry_…`) made on the workspace’s API tokens page. Each operation names the scope it needs.',
  },
  publicKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-Tenant',
    description:
      'The workspace’s public key (`pk_…`, Settings › Error reporting). Not a secret: it only lets a caller send reports.',
  },
  sentryKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Sentry-Auth',
    description:
      'A Sentry DSN’s public key, as Sentry SDKs send it (`X-Sentry-Auth: Sentry sentry_key=pk_…`, or `?sentry_key=`).',
  },
};

const SECURITY_NAMES: Record<Scheme, string> = {
  bearer: 'apiToken',
  publicKey: 'publicKey',
  sentryKey: 'sentryKey',
};

/**
 * zod's JSON Schema for one schema, without its `$schema` line. A `z.preprocess` (a pipe from a
 * transform) is described by what it leads to: the transform only forgives blanks and types.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const def = (
        ctx.zodSchema as { _zod: { def: { type: string; in?: unknown; out?: unknown } } }
      )._zod.def;
      const inner = def.in as { _zod?: { def: { type: string } } } | undefined;
      if (def.type === 'pipe' && inner?._zod?.def.type === 'transform' && def.out) {
        for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
        Object.assign(ctx.jsonSchema, jsonSchemaOf(def.out as z.ZodType, io));
      }
      // `.int()` says "a safe integer" as ±2^53-1 bounds, which readers take for the range a
      // field has (Redoc's samples showed -9007199254740991 for a width): an integer says enough.
      if (ctx.jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete ctx.jsonSchema.minimum;
      if (ctx.jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete ctx.jsonSchema.maximum;
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Where a named schema's placeholder ref points until `SchemaComponents.resolve` names it. */
const PLACEHOLDER = '#/components/schemas/';

/**
 * Schemas named with `.meta({ id })` (a ticket, an error group, a Discord message) are described
 * once under `components.schemas` and referred to everywhere else, as zod extracts them into
 * `$defs`. A schema may read differently as a request (`input`: defaults make fields optional)
 * and as an answer (`output`): the two share the name when they are the same, and the request's
 * is `<id>Input` when they are not.
 */
class SchemaComponents {
  /** `${id}@${io}` -> its JSON Schema, its own refs still placeholders. */
  private readonly defs = new Map<string, JsonSchema>();

  describe(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    return this.hoist(jsonSchemaOf(schema, io), io) as JsonSchema;
  }

  /** Moves every `$defs` entry into the components and points `#/$defs/X` refs at them. */
  private hoist(value: unknown, io: 'input' | 'output'): unknown {
    if (Array.isArray(value)) return value.map((item) => this.hoist(item, io));
    if (typeof value !== 'object' || value === null) return value;
    const out: JsonSchema = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$defs') {
        for (const [id, def] of Object.entries(inner as Record<string, unknown>)) {
          this.defs.set(`${id}@${io}`, this.hoist(def, io) as JsonSchema);
        }
      } else if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
        out.$ref = `${PLACEHOLDER}${inner.slice('#/$defs/'.length)}@${io}`;
      } else {
        out[key] = this.hoist(inner, io);
      }
    }
    return out;
  }

  /**
   * The components, and `document` with each placeholder ref at its final name. Names settle by
   * a fixpoint: a request form equal to its answer form except for a ref to a schema whose two
   * forms differ is itself different, so splits spread until nothing changes.
   */
  resolve<T>(document: T): { document: T; schemas: Record<string, JsonSchema> } {
    const ids = [
      ...new Set([...this.defs.keys()].map((key) => key.replace(/@(input|output)$/, ''))),
    ];
    const split = new Set<string>();
    const nameOf = (id: string, io: string) =>
      io === 'input' && split.has(id) ? `${id}Input` : id;
    const rename = (value: unknown): unknown =>
      JSON.parse(
        JSON.stringify(value).replace(
          /"#\/components\/schemas\/([^"@]+)@(input|output)"/g,
          (_m, id: string, io: string) => JSON.stringify(`${PLACEHOLDER}${nameOf(id, io)}`),
        ),
      );
    for (let changed = true; changed;) {
      changed = false;
      for (const id of ids) {
        const input = this.defs.get(`${id}@input`);
        const output = this.defs.get(`${id}@output`);
        if (split.has(id) || !input || !output) continue;
        if (JSON.stringify(rename(input)) !== JSON.stringify(rename(output))) {
          split.add(id);
          changed = true;
        }
      }
    }
    const schemas: Record<string, JsonSchema> = {};
    for (const id of ids.sort()) {
      for (const io of ['output', 'input'] as const) {
        const def = this.defs.get(`${id}@${io}`);
        if (def) schemas[nameOf(id, io)] ??= rename(def) as JsonSchema;
      }
    }
    return { document: rename(document) as T, schemas };
  }
}

/** `/api/v1/errors/:groupId` -> `/api/v1/errors/{groupId}`. */
export const openApiPath = (pattern: string): string => pattern.replace(/:(\w+)/g, '{$1}');

function parameters(doc: RouteDoc, components: SchemaComponents): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ['path', doc.params],
    ['query', doc.query],
  ] as const) {
    if (!schema) continue;
    const object = components.describe(schema, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: where,
        required: where === 'path' || (object.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

/** The 408 every route with a body may answer (body-deadline.ts), by the route's kind. */
const BODY_TIMEOUT_DOC: Record<BodyTimeout | 'default', string> = {
  default: '60 s by default (`BODY_TIMEOUT_MS`)',
  ingest: '30 s by default (`INGEST_BODY_TIMEOUT_MS`)',
  upload: '5 min by default (`UPLOAD_BODY_TIMEOUT_MS`)',
};

function bodyTimeoutResponse(kind: BodyTimeout | undefined): JsonSchema {
  return {
    description: `The body did not arrive in full within ${BODY_TIMEOUT_DOC[kind ?? 'default']} of the request: \`request_timeout\`, with \`Connection: close\`. Send it again.`,
    headers: { Connection: { description: '`close`', schema: { type: 'string' } } },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

function operation(route: DeclaredRoute, doc: RouteDoc, components: SchemaComponents): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  // Before the route's own answers, so a route that documents its own 408 keeps it.
  if (doc.body || doc.rawBody || route.bodyTimeout) {
    responses['408'] = bodyTimeoutResponse(route.bodyTimeout);
  }
  for (const [status, answer] of Object.entries(doc.responses)) {
    responses[status] = {
      description: answer.description,
      ...(answer.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(answer.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
          }
        : {}),
      // A body named by its type alone (Slack's text `ok`, an event stream) is a string.
      ...(answer.schema || answer.contentType
        ? {
            content: {
              [answer.contentType ?? 'application/json']: {
                schema: answer.schema
                  ? components.describe(answer.schema, 'output')
                  : { type: 'string' },
              },
            },
          }
        : {}),
    };
  }
  responses.default = {
    description: doc.errorSchema
      ? 'An error, in the shape this route’s clients expect.'
      : 'An error: the status and `error.code` say which.',
    content: {
      'application/json': {
        schema: doc.errorSchema
          ? components.describe(doc.errorSchema, 'output')
          : { $ref: '#/components/schemas/Error' },
      },
    },
  };
  const scope = route.access.kind === 'scope' ? [route.access.rule] : [];
  return {
    operationId: operationId(route),
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    security:
      doc.security === 'none' || doc.security === 'webhookKey'
        ? []
        : [{ [SECURITY_NAMES[doc.security]]: scope }],
    ...(parameters(doc, components).length ? { parameters: parameters(doc, components) } : {}),
    ...(doc.rawBody
      ? {
          requestBody: {
            required: true,
            description: [doc.rawBody.description, doc.rawBody.outsideSchema]
              .filter(Boolean)
              .join(' '),
            content: Object.fromEntries(
              doc.rawBody.contentTypes.map((type) => [
                type,
                {
                  schema: doc.rawBody!.schema
                    ? components.describe(doc.rawBody!.schema, 'input')
                    : { type: 'string' },
                },
              ]),
            ),
          },
        }
      : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            content: {
              [doc.bodyContentType ?? 'application/json']: {
                schema: components.describe(doc.body, 'input'),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** `Event webhooks error.group.created` -> `EventWebhooksErrorGroupCreated`. */
const pascal = (text: string): string =>
  text.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());

/** `GET /api/v1/errors/:groupId` -> `getApiV1ErrorsByGroupId`: stable, for generated clients. */
function operationId(route: DeclaredRoute): string {
  const words = route.pattern
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [route.method, ...words]
    .map((word, i) => (i === 0 ? word : word[0]!.toUpperCase() + word.slice(1)))
    .join('');
}

/** The description of the routes that carry a doc, in the order they are declared. */
export function openApiDocument(
  routes: readonly DeclaredRoute[],
  info: OpenApiInfo,
  webhooks: Record<string, WebhookDoc> = {},
): JsonSchema {
  const components = new SchemaComponents();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    if (!route.doc || route.method === 'options') continue;
    const path = openApiPath(route.pattern);
    paths[path] ??= {};
    paths[path][route.method] = operation(route, route.doc, components);
  }
  const described = {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl }],
    paths,
    webhooks: Object.fromEntries(
      Object.entries(webhooks).map(([name, hook]) => [
        name,
        {
          post: {
            // The tag too: `message_created` (room hooks) and `message.created` (events) differ by it.
            operationId: `deliver${pascal(`${hook.tag} ${name}`)}`,
            summary: hook.summary,
            description: hook.description,
            tags: [hook.tag],
            parameters: Object.keys(DELIVERY_HEADERS).map((header) => ({
              $ref: `#/components/parameters/${header}`,
            })),
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: components.describe(hook.schema, 'output') },
              },
            },
            responses: {
              '200': {
                description:
                  'Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint.',
              },
            },
          },
        },
      ]),
    ),
  };
  const { document, schemas } = components.resolve(described);
  return {
    ...document,
    components: {
      schemas: { Error: jsonSchemaOf(errorBodySchema, 'output'), ...schemas },
      // The signature headers every delivery carries, named once.
      parameters: Object.fromEntries(
        Object.entries(DELIVERY_HEADERS).map(([header, description]) => [
          header,
          {
            name: header,
            in: 'header',
            required: !header.endsWith('-Previous'),
            description,
            schema: { type: 'string' },
          },
        ]),
      ),
      securitySchemes: Object.fromEntries(
        Object.entries(SECURITY_SCHEMES).map(([kind, scheme]) => [
          SECURITY_NAMES[kind as keyof typeof SECURITY_NAMES],
          scheme,
        ]),
      ),
    },
  };
}

/**
 * Where two descriptions first differ (a JSON path and both values), or undefined when they are
 * the same: how the committed docs/openapi.json is held to what the code generates, with a message
 * a reviewer can act on.
 */
export function openApiDrift(committed: unknown, generated: unknown, at = '$'): string | undefined {
  if (Object.is(committed, generated)) return undefined;
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null;
  if (isObject(committed) && isObject(generated)) {
    if (Array.isArray(committed) !== Array.isArray(generated)) {
      return `${at}: an ${Array.isArray(committed) ? 'array' : 'object'} in the committed copy, not in the generated one`;
    }
    const keys = new Set([...Object.keys(committed), ...Object.keys(generated)]);
    for (const key of keys) {
      if (!(key in generated)) return `${at}.${key}: in the committed copy only`;
      if (!(key in committed)) return `${at}.${key}: in the generated description only`;
      const drift = openApiDrift(committed[key], generated[key], `${at}.${key}`);
      if (drift) return drift;
    }
    return undefined;
  }
  const show = (value: unknown) => JSON.stringify(value)?.slice(0, 120);
  return `${at}: committed ${show(committed)}, generated ${show(generated)}`;
}
