// `pnpm --filter @ferry/client generate`: src/api.d.ts from docs/openapi.json, with
// openapi-typescript. services/all/test/client.test.ts holds the committed file to what this
// writes, so a change in the description shows in the client's types in the same review.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { OpenAPI3 } from 'openapi-typescript';
import { clientTypes } from '../src/client-types.js';

const description = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url)), 'utf8'),
) as OpenAPI3;
const out = fileURLToPath(new URL('../src/api.d.ts', import.meta.url));
writeFileSync(out, await clientTypes(description));
console.log(`client: wrote ${out}`);
