import type { WidgetConfig } from './config';

export type SendResult = { ok: true } | { ok: false; message: string };

export interface Api {
  /** POST /widget/v1/feedback; resolves (never rejects) with the outcome. */
  sendFeedback(body: unknown): Promise<SendResult>;
  /** POST /ingest/errors, fire-and-forget: every failure is swallowed. */
  sendErrors(body: unknown): void;
  /**
   * `service('identify', …)`: remembered, and sent (POST /widget/v1/visitors/identity) with the
   * next error report when it differs from what this browser last sent, so the Errors page names
   * the visitor. No request of its own on every page load.
   */
  setIdentity(identity: Record<string, string>): void;
  /** GET /widget/v1/config (a simple request: the key in the query); null when it fails. */
  config(): Promise<{ capture: boolean } | null>;
}

const FAILED = 'We could not send your feedback. Check your connection and try again.';
/** keepalive bodies are capped at 64 KiB by browsers; bigger ones go without it. */
const KEEPALIVE_MAX = 60_000;

function noop(): void {
  // Failures are swallowed on purpose: the host page must never see them.
}

export function createApi(cfg: WidgetConfig): Api {
  const storageKey = `ferry.visitor.${cfg.key}`;
  let token: string | null = readToken(storageKey);
  let pending: Promise<string | null> | null = null;
  const identityKey = `ferry.identity.${cfg.key}`;
  let identity = '';

  /** The identity, once per change per browser (localStorage remembers what was sent). */
  function sendIdentity(visitor: string | null): void {
    if (!visitor || !identity) return;
    const sent = `${visitor} ${identity}`;
    try {
      if (localStorage.getItem(identityKey) === sent) return;
    } catch {
      // Storage may be disabled: send it, at most once per report.
    }
    post('/widget/v1/visitors/identity', identity, { visitor, keepalive: true }).then(
      (response) => {
        if (!response.ok) return;
        try {
          localStorage.setItem(identityKey, sent);
        } catch {
          // Sent again with the next report: harmless.
        }
      },
      noop,
    );
  }

  function post(
    path: string,
    body: string,
    options: { visitor?: string | null; keepalive?: boolean; timeoutMs?: number },
  ): Promise<Response> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'X-Service-Tenant': cfg.key,
    };
    if (options.visitor) headers['X-Service-Visitor'] = options.visitor;
    const init: RequestInit = {
      method: 'POST',
      headers,
      body,
      mode: 'cors',
      credentials: 'omit',
    };
    if (options.keepalive && body.length < KEEPALIVE_MAX) init.keepalive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (options.timeoutMs && typeof AbortController === 'function') {
      const controller = new AbortController();
      init.signal = controller.signal;
      timer = setTimeout(() => controller.abort(), options.timeoutMs);
    }
    try {
      return window.fetch(cfg.base + path, init).then(
        (response) => {
          if (timer) clearTimeout(timer);
          return response;
        },
        (error: unknown) => {
          if (timer) clearTimeout(timer);
          throw error;
        },
      );
    } catch (error) {
      // A host page may have replaced fetch with something that throws synchronously.
      if (timer) clearTimeout(timer);
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  function forgetToken(): void {
    token = null;
    try {
      localStorage.removeItem(storageKey);
    } catch {
      // Storage may be disabled: the in-memory token is gone either way.
    }
  }

  /** The visitor token, created on first need; null when the service cannot give one. */
  function visitorToken(): Promise<string | null> {
    if (token) return Promise.resolve(token);
    if (!pending) {
      pending = post('/widget/v1/visitors', '{}', { timeoutMs: 10_000 })
        .then((response) => (response.ok ? response.json() : null))
        .then(
          (data: unknown) => {
            pending = null;
            const visitor = isObject(data) && isObject(data.visitor) ? data.visitor : null;
            const value = visitor ? visitor.token : null;
            if (!visitor || typeof value !== 'string' || !value) return null;
            token = value;
            try {
              localStorage.setItem(storageKey, JSON.stringify({ id: visitor.id, token: value }));
            } catch {
              // Storage may be disabled or full: the token still works for this page load.
            }
            return value;
          },
          () => {
            pending = null;
            return null;
          },
        );
    }
    return pending;
  }

  return {
    sendFeedback(body) {
      let json: string;
      try {
        json = JSON.stringify(body);
      } catch {
        return Promise.resolve({ ok: false, message: FAILED });
      }
      const send = () =>
        visitorToken().then((visitor) =>
          // A screenshot makes the body up to ~2.8 MB: give slow connections time to send it.
          post('/widget/v1/feedback', json, {
            visitor,
            timeoutMs: json.length > 100_000 ? 90_000 : 20_000,
          }),
        );
      return send()
        .then((response) => {
          // A token the service no longer knows (another workspace's, or wiped): forget it, get
          // a new one, and send once more.
          if (response.status !== 401 || !token) return response;
          forgetToken();
          return send();
        })
        .then(
          (response): Promise<SendResult> | SendResult => {
            if (response.status === 201 || response.ok) return { ok: true };
            // Only a validation refusal says something the person can act on.
            if ([400, 413, 415, 422].indexOf(response.status) < 0) {
              return { ok: false, message: FAILED };
            }
            return response.json().then(
              (data: unknown): SendResult => ({ ok: false, message: serverMessage(data) }),
              (): SendResult => ({ ok: false, message: FAILED }),
            );
          },
          (): SendResult => ({ ok: false, message: FAILED }),
        );
    },
    sendErrors(body) {
      let json: string;
      try {
        json = JSON.stringify(body);
      } catch {
        return;
      }
      visitorToken()
        .then((visitor) => {
          sendIdentity(visitor);
          return post('/ingest/errors', json, { visitor, keepalive: true });
        })
        .then(noop, noop);
    },
    config() {
      try {
        return window
          .fetch(`${cfg.base}/widget/v1/config?key=${encodeURIComponent(cfg.key)}`, {
            mode: 'cors',
            credentials: 'omit',
          })
          .then((response) => (response.ok ? response.json() : null))
          .then(
            (data: unknown) => (isObject(data) ? { capture: data.capture === true } : null),
            () => null,
          );
      } catch {
        return Promise.resolve(null);
      }
    },
    setIdentity(value) {
      try {
        identity = Object.keys(value).length ? JSON.stringify(value) : '';
      } catch {
        identity = '';
      }
    },
  };
}

function readToken(storageKey: string): string | null {
  try {
    const raw = localStorage.getItem(storageKey);
    const data: unknown = raw ? JSON.parse(raw) : null;
    return isObject(data) && typeof data.token === 'string' && data.token ? data.token : null;
  } catch {
    return null;
  }
}

/** The service's own sentence for a refusal (e.g. an invalid email), else the generic one. */
function serverMessage(data: unknown): string {
  const error = isObject(data) ? data.error : null;
  const message = isObject(error) ? error.message : null;
  return typeof message === 'string' && message && message.length < 300 ? message : FAILED;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
