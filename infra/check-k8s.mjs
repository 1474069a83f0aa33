#!/usr/bin/env node
// `pnpm check:k8s` (part of `pnpm check`): renders each kustomize overlay under infra/k8s/overlays
// (infra/k8s-render.mjs: no kustomize, kubectl or cluster is needed) and checks every object it
// yields against the Kubernetes schemas (infra/k8s-schema.mjs), how they fit together
// (infra/k8s-rules.mjs) and docker-compose.yml (infra/k8s-compose-parity.mjs).
//
//   node infra/check-k8s.mjs [--compose path/to/docker-compose.yml] [overlay-dir ...]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { composeParityProblems } from './k8s-compose-parity.mjs';
import { renderKustomization } from './k8s-render.mjs';
import { RenderError } from './k8s-render-error.mjs';
import { manifestProblems } from './k8s-rules.mjs';
import { schemaProblems } from './k8s-schema.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  options: { compose: { type: 'string', default: path.join(root, 'docker-compose.yml') } },
  allowPositionals: true,
});
const overlaysDir = path.join(root, 'infra', 'k8s', 'overlays');
const overlays = positionals.length
  ? positionals.map((dir) => path.resolve(dir))
  : fs.readdirSync(overlaysDir).map((name) => path.join(overlaysDir, name));

let failed = false;
for (const overlay of overlays) {
  const shown = path.relative(root, overlay) || overlay;
  let objects;
  try {
    objects = renderKustomization(overlay);
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    console.error(`${shown}: cannot render: ${error.message}`);
    failed = true;
    continue;
  }
  const problems = [
    ...(await schemaProblems(objects)),
    ...manifestProblems(objects),
    ...composeParityProblems(objects, values.compose),
  ];
  if (problems.length) {
    console.error(`${shown}: ${problems.length} problem(s)`);
    for (const problem of problems) console.error(`  ${problem}`);
    failed = true;
    continue;
  }
  console.log(
    `k8s: ${shown} renders ${objects.length} objects, valid against the Kubernetes schemas, ` +
      `consistent, and running what docker-compose.yml runs`,
  );
}
process.exit(failed ? 1 : 0);
