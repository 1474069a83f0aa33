// `pnpm check:openapi`: the committed API description (docs/openapi.json) is valid OpenAPI 3.1 by
// a real validator (@seriousme/openapi-schema-validator). That it matches what the routes generate
// is held by services/all/test/openapi.test.ts, which needs the app's route tables mounted.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'services/all/package.json'));
const { Validator } = await import(require.resolve('@seriousme/openapi-schema-validator'));
const file = path.join(root, 'docs/openapi.json');
const description = JSON.parse(readFileSync(file, 'utf8'));
const result = await new Validator().validate(description);
if (!result.valid) {
  console.error(`openapi: docs/openapi.json is not valid OpenAPI ${description.openapi}:`);
  console.error(JSON.stringify(result.errors, null, 2).slice(0, 4000));
  process.exit(1);
}
// OpenAPI requires each operationId once (the schema cannot say so; client generators refuse).
const ids = [description.paths, description.webhooks ?? {}]
  .flatMap((group) => Object.values(group))
  .flatMap((item) => Object.values(item))
  .map((operation) => operation.operationId);
const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
if (repeated.length) {
  console.error(`openapi: operationIds used more than once: ${[...new Set(repeated)].join(', ')}`);
  process.exit(1);
}
const operations = Object.values(description.paths).flatMap((item) => Object.keys(item)).length;
console.log(
  `openapi: docs/openapi.json is valid OpenAPI ${description.openapi}: ${operations} operations, ${Object.keys(description.webhooks ?? {}).length} webhooks`,
);
