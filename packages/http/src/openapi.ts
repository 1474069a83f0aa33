import { z } from 'zod';
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
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** `/api/v1/errors/:groupId` -> `/api/v1/errors/{groupId}`. */
export const openApiPath = (pattern: string): string => pattern.replace(/:(\w+)/g, '{$1}');

function parameters(doc: RouteDoc): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ['path', doc.params],
    ['query', doc.query],
  ] as const) {
    if (!schema) continue;
    const object = jsonSchemaOf(schema, 'input') as {
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

function operation(route: DeclaredRoute, doc: RouteDoc): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
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
                schema: answer.schema ? jsonSchemaOf(answer.schema, 'output') : { type: 'string' },
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
          ? jsonSchemaOf(doc.errorSchema, 'output')
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
    ...(parameters(doc).length ? { parameters: parameters(doc) } : {}),
    ...(doc.rawBody
      ? {
          requestBody: {
            required: true,
            description: doc.rawBody.description,
            content: Object.fromEntries(
              doc.rawBody.contentTypes.map((type) => [
                type,
                {
                  schema: doc.rawBody!.schema
                    ? jsonSchemaOf(doc.rawBody!.schema, 'input')
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
                schema: jsonSchemaOf(doc.body, 'input'),
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
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    if (!route.doc || route.method === 'options') continue;
    const path = openApiPath(route.pattern);
    paths[path] ??= {};
    paths[path][route.method] = operation(route, route.doc);
  }
  return {
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
            parameters: Object.entries(DELIVERY_HEADERS).map(([header, description]) => ({
              name: header,
              in: 'header',
              required: !header.endsWith('-Previous'),
              description,
              schema: { type: 'string' },
            })),
            requestBody: {
              required: true,
              content: { 'application/json': { schema: jsonSchemaOf(hook.schema, 'output') } },
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
    components: {
      schemas: { Error: jsonSchemaOf(errorBodySchema, 'output') },
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
