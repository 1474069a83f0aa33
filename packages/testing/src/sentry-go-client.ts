import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SentryClientApp } from './sentry-clients.js';

/**
 * Debian's sentry-go (`golang-github-getsentry-sentry-go-dev`, 0.11 in bookworm; .ci/run installs
 * it with `golang-go`) in a Go program of its own, built by Debian's toolchain and run as its own
 * process, as in a user's app. 0.11 posts each event as plain JSON to the legacy store endpoint
 * (envelopes are only for its transactions), with `threads` a bare list and its own frames (and
 * the runtime's) already dropped, so the app's frames are all there is.
 */
const run = promisify(execFile);

/** The program's functions that call `sentry.CaptureMessage`: one call site each. */
export type SentryGoCaller = 'chargeCard' | 'refundCard';

/** Its frames' `abs_path` is where this is written, and their `function` the callers' names. */
const PROGRAM = `package main

import (
	"fmt"
	"os"
	"time"

	"github.com/getsentry/sentry-go"
)

func chargeCard(message string) {
	if sentry.CaptureMessage(message) == nil {
		fail("sentry-go dropped the event")
	}
}

func refundCard(message string) {
	if sentry.CaptureMessage(message) == nil {
		fail("sentry-go dropped the event")
	}
}

func fail(why string) {
	fmt.Fprintln(os.Stderr, why)
	os.Exit(1)
}

func main() {
	dsn, release, environment, message := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	callers := map[string]func(string){"chargeCard": chargeCard, "refundCard": refundCard}
	err := sentry.Init(sentry.ClientOptions{
		Dsn:              dsn,
		Release:          release,
		Environment:      environment,
		AttachStacktrace: true,
	})
	if err != nil {
		fail(err.Error())
	}
	for _, name := range os.Args[5:] {
		callers[name](message)
	}
	if !sentry.Flush(10 * time.Second) {
		fail("sentry-go did not deliver every event in 10 s")
	}
}
`;

/** The program, built: a test file builds it once (beforeAll) and removes it (afterAll). */
export interface SentryGoApp {
  /** The program's main.go: its frames' file (`abs_path`). */
  source: string;
  /**
   * sentry-go, with AttachStacktrace, sends `sentry.CaptureMessage(message)` once from each of
   * `callers`, in that order, and exits once Flush says every event was delivered.
   */
  sendMessages(
    dsn: string,
    app: SentryClientApp & { message: string; callers: readonly SentryGoCaller[] },
  ): Promise<void>;
  remove(): void;
}

/** Builds the program with Debian's Go toolchain, offline, into a folder of its own. */
export async function buildSentryGoApp(): Promise<SentryGoApp> {
  // No "sentry" in the path: it is the app's, and would read as the SDK's to a path rule.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-go-app-'));
  const remove = (): void => fs.rmSync(dir, { recursive: true, force: true });
  const source = path.join(dir, 'main.go');
  const binary = path.join(dir, 'app');
  fs.writeFileSync(source, PROGRAM);
  try {
    await run('/usr/bin/go', ['build', '-o', binary, source], {
      cwd: dir,
      // Offline: GOPATH mode (no go.mod, no module proxy) finds sentry-go and its imports where
      // Debian's -dev packages put their source. A pure-Go build needs no C compiler (golang-go
      // only recommends gcc) but compiles the standard library anew (6-25 s on 2 cores), so the
      // build cache outlives the run: later builds on the machine take about a second.
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPATH: '/usr/share/gocode',
        GOCACHE: path.join(os.tmpdir(), 'ferry-go-build-cache'),
        CGO_ENABLED: '0',
        // A developer's GOFLAGS (-mod=vendor...) is meant for their modules, not this build.
        GOFLAGS: '',
        GOPROXY: 'off',
      },
      // A bound for a hang, not a claim of speed: a cold build beside a busy suite is slow.
      timeout: 180_000,
    });
  } catch (error) {
    remove();
    throw error;
  }
  return {
    source,
    async sendMessages(dsn, app) {
      await run(binary, [dsn, app.release, app.environment, app.message, ...app.callers], {
        timeout: 30_000,
      });
    },
    remove,
  };
}
