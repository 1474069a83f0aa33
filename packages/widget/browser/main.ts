/**
 * Ferry's embedded widget: feedback with an element picker, and error reporting for its own
 * failures. It owns exactly one global, `window.service`, and never throws into the host page.
 */
import { createApi } from './api';
import { readConfig } from './config';
import { initErrors, reportCaught, reportError, safe } from './errors';
import { startEvidence, stopEvidence } from './evidence';
import { createUi, type Identity, type Ui } from './ui';

interface ServiceFunction {
  (...args: unknown[]): void;
  /** Calls queued by the snippet's stub before the bundle loaded. */
  q?: ArrayLike<unknown>[];
  /** Set on the real function, so a second copy of the bundle stands down. */
  ferry?: boolean;
}

const IDENTITY_MAX: Record<keyof Identity, number> = { label: 120, role: 120, email: 254 };

function cleanIdentity(value: unknown): Identity {
  const identity: Identity = {};
  if (typeof value !== 'object' || value === null) return identity;
  const source = value as Record<string, unknown>;
  for (const field of ['label', 'role', 'email'] as const) {
    const raw = source[field];
    if (typeof raw !== 'string' && typeof raw !== 'number') continue;
    const text = String(raw).trim().slice(0, IDENTITY_MAX[field]);
    if (text) identity[field] = text;
  }
  return identity;
}

/**
 * Capture (issue 45) starts at load, before the workspace's answer, so what the page does early
 * is there; when the answer says off (or never comes) it is taken down again. The last answer is
 * remembered, so on a site with capture off the wrappers are not even installed after the first
 * page view.
 */
function initCapture(key: string, base: string, api: ReturnType<typeof createApi>): void {
  const remembered = `ferry.capture.${key}`;
  let last: string | null = null;
  try {
    last = localStorage.getItem(remembered);
  } catch {
    // Storage may be disabled: start, and let the answer decide.
  }
  if (last !== 'off') startEvidence(base);
  void api.config().then(
    safe((answer: { capture: boolean } | null) => {
      const on = !!answer && answer.capture;
      if (on) startEvidence(base);
      else stopEvidence();
      try {
        localStorage.setItem(remembered, on ? 'on' : 'off');
      } catch {
        // Asked again on the next page view.
      }
    }),
  );
}

function boot(): void {
  const globals = window as unknown as { service?: ServiceFunction };
  const existing = globals.service;
  if (typeof existing === 'function' && existing.ferry) return;
  const config = readConfig();
  if (!config) return;
  const api = createApi(config);
  initErrors(config, api);
  initCapture(config.key, config.base, api);

  let identity: Identity = {};
  let ui: Ui | null = null;
  let openWhenReady = false;

  const commands: Record<string, (...args: unknown[]) => void> = {
    identify(value) {
      identity = cleanIdentity(value);
      api.setIdentity({ ...identity });
      if (ui) ui.setIdentity(identity);
    },
    reportError(error, context) {
      reportError(error, context);
    },
    open() {
      if (ui) ui.open();
      else openWhenReady = true;
    },
  };

  const service: ServiceFunction = function (...args: unknown[]): void {
    try {
      const name = args[0];
      if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(commands, name)) {
        return; // unknown commands are ignored
      }
      commands[name]?.(...args.slice(1));
    } catch (error) {
      reportCaught(error);
    }
  };
  Object.defineProperty(service, 'ferry', { value: true });

  const mount = safe(() => {
    if (ui) return;
    ui = createUi(api, () => identity, config.base);
    if (openWhenReady) ui.open();
  });
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);

  const queued = (
    existing && existing.q ? Array.prototype.slice.call(existing.q) : []
  ) as ArrayLike<unknown>[];
  globals.service = service;
  for (const args of queued) {
    service(...(Array.prototype.slice.call(args) as unknown[]));
  }
}

try {
  boot();
} catch (error) {
  reportCaught(error);
}
