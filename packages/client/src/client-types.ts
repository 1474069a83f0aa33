import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

/**
 * The TypeScript types openapi-typescript writes for a description, with a header saying so:
 * what src/api.d.ts holds for docs/openapi.json (scripts/generate.ts writes it, the client test
 * checks it).
 */
export async function clientTypes(description: OpenAPI3): Promise<string> {
  const ast = await openapiTS(description);
  return `/* Generated from docs/openapi.json by openapi-typescript (pnpm --filter @ferry/client generate). Do not edit. */\n\n${astToString(ast)}`;
}
