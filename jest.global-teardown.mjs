import { tsImport } from 'tsx/esm/api';

export default async function globalTeardown() {
  const mod = await tsImport('./packages/testing/src/global-teardown.ts', import.meta.url);
  await mod.default();
}
