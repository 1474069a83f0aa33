import type http from 'node:http';
import querystring from 'node:querystring';
import type { RecordedRequest } from './types.js';

/** What a handler answers; `send` writes it. */
export interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** Where GitHub's REST errors point; its description requires it on several error bodies. */
export const DOCS_URL = 'https://docs.github.com/rest';

/** Thrown by handlers to answer early with a GitHub-style `{message, documentation_url}` error. */
export class Refusal extends Error {
  constructor(readonly reply: Reply) {
    super(`refused with ${reply.status}`);
  }
}

export function refuse(status: number, message: string): never {
  throw new Refusal({ status, json: { message, documentation_url: DOCS_URL } });
}

/** GitHub's 422 for a request body it will not take. */
export function validationFailed(errors: Array<Record<string, unknown>>): Reply {
  return {
    status: 422,
    json: { message: 'Validation Failed', errors, documentation_url: DOCS_URL },
  };
}

export function notFound(): Reply {
  return { status: 404, json: { message: 'Not Found', documentation_url: DOCS_URL } };
}

export function html(): Record<string, string> {
  return { 'content-type': 'text/html; charset=utf-8' };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function stringField(source: unknown, key: string): string | undefined {
  if (!isRecord(source)) return undefined;
  const value = source[key];
  return typeof value === 'string' ? value : undefined;
}

/** Strings only: form values, and JSON values that are scalars (client_id may arrive as JSON). */
export function flatStrings(source: unknown): Record<string, string> {
  if (!isRecord(source)) return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === 'string' || typeof value === 'number') out[key] = String(value);
  }
  return out;
}

export function parseBody(raw: string, contentType: string): unknown {
  if (raw === '') return undefined;
  if (contentType.includes('application/x-www-form-urlencoded')) {
    return flatStrings(querystring.parse(raw));
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function lowerCaseKeys(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

export function bearerToken(headers: Record<string, string>): string | undefined {
  const match = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

export function matches(
  rule: { method?: string; path: string | RegExp },
  request: RecordedRequest,
): boolean {
  if (rule.method && rule.method.toUpperCase() !== request.method) return false;
  return typeof rule.path === 'string' ? rule.path === request.path : rule.path.test(request.path);
}

export function send(res: http.ServerResponse, reply: Reply): void {
  const headers = { ...reply.headers };
  let payload = '';
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  } else if (reply.text !== undefined) {
    payload = reply.text;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}
