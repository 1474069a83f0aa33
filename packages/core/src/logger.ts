import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths that must never reach a log line, whatever logs them. */
const REDACT = [
  'password',
  '*.password',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'req.headers["x-service-wake-token"]',
];

export function createLogger(options: { level: string; name?: string }): Logger {
  return pino({
    level: options.level,
    ...(options.name ? { name: options.name } : {}),
    redact: { paths: REDACT, censor: '[redacted]' },
  });
}
