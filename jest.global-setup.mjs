// Jest loads globalSetup through CommonJS; tsx lets it run our ESM TypeScript as is.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const mod = await tsImport('./packages/testing/src/global-setup.ts', import.meta.url);
  await mod.default();
}
