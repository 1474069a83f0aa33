import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api.js';

/**
 * A typed Ferry API client (issue 46): openapi-fetch over the types openapi-typescript generates
 * from docs/openapi.json. Paths, params, bodies and answers are checked by the compiler against
 * the description, and the suite's black-box tests use it, so a broken description breaks them.
 */
export type FerryClient = Client<paths>;

export function createFerryClient(baseUrl: string, token?: string): FerryClient {
  return createClient<paths>({
    baseUrl,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
}

export type { components, paths, webhooks } from './api.js';
