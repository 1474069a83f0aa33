#!/usr/bin/env node
// The architecture guard (DESIGN.md: "No service imports another service"), run by `pnpm check`:
// - no package or service imports a service (by package name, a subpath of one, or a relative
//   path into another service's folder) or lists one as a dependency; only services/all (which
//   mounts them together) and bench may;
// - a service exports only its entry ("."): domain that others need lives in a package
//   (packages/workspace), never behind a service's subpath export.
// Usage: node infra/check-boundaries.mjs [--root DIR]. Exit 1 with one line per violation.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Who may import a service: the one list, which infra/dependency-cruiser.mjs reads too. */
export const ALLOWED_IMPORTERS = new Set(['services/all', 'bench']);
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;
const SKIP_DIRS = new Set(['node_modules', '.tsbuild', 'dist', 'coverage', 'vendor', '.data']);
// Static imports and re-exports, side-effect imports, dynamic import(), require() and file URLs.
const SPECIFIERS = [
  /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  // A path to another service's file (to spawn its entry, read its sources) is a dependency too.
  /\bnew\s+URL\(\s*['"](\.[^'"]*)['"]\s*,\s*import\.meta\.url/g,
];

function parseArgs(argv) {
  const at = argv.indexOf('--root');
  if (at >= 0 && argv[at + 1]) return path.resolve(argv[at + 1]);
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Every workspace package: its folder relative to the root, its name and package.json. */
function workspacePackages(root) {
  const found = [];
  for (const group of ['packages', 'services']) {
    const dir = path.join(root, group);
    if (!fs.existsSync(dir)) continue;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const manifest = path.join(dir, entry.name, 'package.json');
      if (entry.isDirectory() && fs.existsSync(manifest)) {
        found.push({ dir: `${group}/${entry.name}`, json: readJson(manifest) });
      }
    }
  }
  if (fs.existsSync(path.join(root, 'bench', 'package.json'))) {
    found.push({ dir: 'bench', json: readJson(path.join(root, 'bench', 'package.json')) });
  }
  return found.map((p) => ({ ...p, name: p.json.name, isService: p.dir.startsWith('services/') }));
}

function* sourceFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) yield full;
  }
}

function lineOf(text, index) {
  return text.slice(0, index).split('\n').length;
}

export function checkBoundaries(root) {
  const problems = [];
  const packages = workspacePackages(root);
  const services = packages.filter((p) => p.isService);
  const serviceByName = new Map(services.map((s) => [s.name, s]));

  for (const pkg of packages) {
    if (pkg.isService) {
      const exportsField = pkg.json.exports;
      const subpaths =
        exportsField && typeof exportsField === 'object' && !Array.isArray(exportsField)
          ? Object.keys(exportsField).filter((key) => key !== '.')
          : [];
      if (subpaths.length) {
        problems.push(
          `${pkg.dir}/package.json: a service exports subpaths (${subpaths.join(', ')}); ` +
            'move shared domain into a package (packages/workspace)',
        );
      }
    }
    if (ALLOWED_IMPORTERS.has(pkg.dir)) continue;

    for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
      for (const dep of Object.keys(pkg.json[field] ?? {})) {
        if (serviceByName.has(dep) && dep !== pkg.name) {
          problems.push(
            `${pkg.dir}/package.json: ${field} lists the service ${dep}; ` +
              'only services/all and bench may depend on services',
          );
        }
      }
    }

    const own = path.join(root, pkg.dir);
    for (const file of sourceFiles(own)) {
      const text = fs.readFileSync(file, 'utf8');
      const rel = path.relative(root, file);
      for (const pattern of SPECIFIERS) {
        for (const match of text.matchAll(pattern)) {
          const spec = match[1];
          let target;
          if (spec.startsWith('.')) {
            const resolved = path.relative(root, path.resolve(path.dirname(file), spec));
            const service = services.find(
              (s) => s.dir !== pkg.dir && (resolved === s.dir || resolved.startsWith(`${s.dir}/`)),
            );
            if (service) target = `${spec} (inside ${service.dir})`;
          } else {
            const name = spec.startsWith('@')
              ? spec.split('/').slice(0, 2).join('/')
              : spec.split('/')[0];
            if (serviceByName.has(name) && name !== pkg.name) target = spec;
          }
          if (target) {
            problems.push(
              `${rel}:${lineOf(text, match.index)}: imports ${target}, a service; ` +
                'only services/all and bench may import services (shared code goes in packages/)',
            );
          }
        }
      }
    }
  }
  return [...new Set(problems)];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = parseArgs(process.argv.slice(2));
  const problems = checkBoundaries(root);
  if (problems.length) {
    process.stderr.write(`Boundary check failed:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write('boundaries: no package or service imports a service\n');
}
