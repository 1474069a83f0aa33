import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { defineConfig } from '@ferry/core';

/** The GitHub App's variables (DESIGN.md "Hosted dispatch"); all five or none. */
export const GITHUB_APP_VARIABLES = [
  'GITHUB_APP_ID',
  'GITHUB_APP_PRIVATE_KEY',
  'GITHUB_APP_SLUG',
  'GITHUB_CLIENT_ID',
  'GITHUB_CLIENT_SECRET',
] as const;

const baseUrl = (fallback: string) =>
  z
    .url({ protocol: /^https?$/, error: 'Must be an http(s) URL.' })
    .default(fallback)
    .transform((value) => value.replace(/\/+$/, ''));

const loadShape = defineConfig({
  GITHUB_APP_ID: z.string().trim().optional(),
  /** PEM; env files often carry it on one line with literal `\n`, so both forms are accepted. */
  GITHUB_APP_PRIVATE_KEY: z
    .string()
    .optional()
    .transform((value) => value?.replace(/\\n/g, '\n').trim())
    .refine((value) => value === undefined || isPrivateKey(value), {
      message: 'Must be the GitHub App private key in PEM form (-----BEGIN ... PRIVATE KEY-----).',
    }),
  GITHUB_APP_SLUG: z.string().trim().optional(),
  GITHUB_CLIENT_ID: z.string().trim().optional(),
  GITHUB_CLIENT_SECRET: z.string().trim().optional(),
  /** REST base: https://api.github.com, or https://HOST/api/v3 on GitHub Enterprise Server. */
  GITHUB_API_URL: baseUrl('https://api.github.com'),
  /** Web base (OAuth pages, the App's install page): https://github.com or https://HOST. */
  GITHUB_WEB_URL: baseUrl('https://github.com'),
});

function isPrivateKey(pem: string): boolean {
  try {
    createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}

export interface GithubApp {
  appId: string;
  privateKey: string;
  slug: string;
  clientId: string;
  clientSecret: string;
  apiUrl: string;
  webUrl: string;
}

export type GithubSettings =
  | { configured: true; app: GithubApp }
  /** Not connected: the GitHub page names the variables still to set; nothing else breaks. */
  | { configured: false; missing: string[]; apiUrl: string; webUrl: string };

export function loadGithubSettings(env: NodeJS.ProcessEnv = process.env): GithubSettings {
  const own = loadShape(env);
  const missing = GITHUB_APP_VARIABLES.filter((name) => !own[name]);
  if (missing.length) {
    return { configured: false, missing, apiUrl: own.GITHUB_API_URL, webUrl: own.GITHUB_WEB_URL };
  }
  return {
    configured: true,
    app: {
      appId: own.GITHUB_APP_ID!,
      privateKey: own.GITHUB_APP_PRIVATE_KEY!,
      slug: own.GITHUB_APP_SLUG!,
      clientId: own.GITHUB_CLIENT_ID!,
      clientSecret: own.GITHUB_CLIENT_SECRET!,
      apiUrl: own.GITHUB_API_URL,
      webUrl: own.GITHUB_WEB_URL,
    },
  };
}
