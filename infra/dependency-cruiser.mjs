/**
 * The import graph's rules, checked by `pnpm check:graph` (part of `pnpm check`) with
 * dependency-cruiser, which resolves every import the way TypeScript does (type-only ones too):
 * - no circles, so every module can be read (and loaded) after the ones it needs;
 * - the floors of DESIGN.md: no package imports a service, and no service imports another one
 *   (services/all mounts them together; bench drives them).
 * infra/check-boundaries.mjs keeps what a graph cannot show: package.json dependencies on a
 * service, a service's subpath exports, and file URLs into another service's folder. Who may
 * import services is its ALLOWED_IMPORTERS, read here, so the list is written once.
 */
import { ALLOWED_IMPORTERS } from './check-boundaries.mjs';

const allowed = `^(${[...ALLOWED_IMPORTERS].join('|')})/`;

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: break it by moving what both sides need into a leaf module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'package-imports-service',
      severity: 'error',
      comment: 'Packages sit below services: what a package needs lives in a package.',
      from: { path: '^packages/', pathNot: allowed },
      to: { path: '^services/' },
    },
    {
      name: 'service-imports-service',
      severity: 'error',
      comment:
        'No service imports another: shared code goes in packages/ (only services/all mounts them all).',
      from: { path: '^services/([^/]+)/', pathNot: allowed },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|\\.tsbuild|\\.build|\\.data|dist|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
