import { z } from 'zod';
import {
  booleanFromEnv,
  defineConfig,
  loadAll,
  serviceConfig,
  loadSsrfSettings,
  type SsrfSettings,
} from '@ferry/core';
import { loadGithubSettings, type GithubSettings } from '@ferry/github';

/** `https://a.example, http://localhost:5173`: origins, each a scheme, host and optional port. */
const originsFromEnv = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z
        .url()
        .refine((url) => new URL(url).origin === url.replace(/\/$/, ''), {
          message: 'each must be an origin: scheme, host and port only (https://app.example)',
        })
        .transform((url) => new URL(url).origin),
    ),
  );

const loadOwnSettings = defineConfig({
  /**
   * Origins besides PUBLIC_URL's whose pages may open the live connection (socket.io), e.g. a
   * second hostname of the same deployment. Same-origin pages always may.
   */
  ALLOWED_ORIGINS: originsFromEnv.default([]),
  /** Sign-in attempts per account per minute (brute force), and per client address. */
  SIGNIN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  SIGNIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** The web service's own entry runs an outbox relay unless the `relay` service does (compose). */
  WEB_RELAY: booleanFromEnv.default(true),
  /**
   * The same switch the ingest-errors service obeys: the Errors pages say when it is off, where
   * they show how to send a report (set it alike on both in a split deployment).
   */
  ERROR_INGESTION_ENABLED: booleanFromEnv.default(true),
  /**
   * The same limit webhooks-out puts on one attempt: "Send test event" and "Send again" wait up to
   * this (plus a margin) for the attempt, so the page they lead back to shows it.
   */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
});

/** What the web service reads from the environment beyond the shared config; parsed at start. */
export interface WebSettings {
  /** ALLOW_PRIVATE_WEBHOOK_TARGETS: the save-time check of outgoing hook targets. */
  ssrf: SsrfSettings;
  /** ALLOWED_ORIGINS, normalised (`https://host[:port]`). */
  allowedOrigins: string[];
  /** Sign-in and sign-up attempts allowed per minute. */
  signInLimits: { perAccount: number; perAddress: number };
  /** The GitHub App (hosted dispatch); when not configured, the GitHub page names what to set. */
  github: GithubSettings;
  /** WEB_RELAY: services/web/src/main.ts runs the outbox relay too. */
  runRelay: boolean;
  /** ERROR_INGESTION_ENABLED: false turns reports away; the Errors pages say so. */
  errorIngestionEnabled: boolean;
  /** How long "Send test event" waits for its attempt (WEBHOOK_TIMEOUT_MS plus a margin). */
  sendOnceWaitMs: number;
}

export function loadWebSettings(env: NodeJS.ProcessEnv = process.env): WebSettings {
  const { own, ssrf, github } = loadAll(
    { own: loadOwnSettings, ssrf: loadSsrfSettings, github: loadGithubSettings },
    env,
  );
  return {
    ssrf,
    allowedOrigins: own.ALLOWED_ORIGINS,
    signInLimits: {
      perAccount: own.SIGNIN_ATTEMPTS_PER_MINUTE,
      perAddress: own.SIGNIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE,
    },
    runRelay: own.WEB_RELAY,
    errorIngestionEnabled: own.ERROR_INGESTION_ENABLED,
    sendOnceWaitMs: own.WEBHOOK_TIMEOUT_MS + 2_000,
    github,
  };
}

/** The whole config of the web process; every problem listed at once. */
export const loadWebConfig = serviceConfig('web', loadWebSettings);
export type WebConfig = ReturnType<typeof loadWebConfig>;
