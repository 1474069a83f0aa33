import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

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

/**
 * Readable lines for a person at a terminal (`npm start`): stdout is a TTY and NODE_ENV is neither
 * production nor test. JSON lines otherwise: pipes, files, containers and log collectors.
 */
export function prettyByDefault(
  env: NodeJS.ProcessEnv = process.env,
  stdout: { isTTY?: boolean } = process.stdout,
): boolean {
  return stdout.isTTY === true && env.NODE_ENV !== 'production' && env.NODE_ENV !== 'test';
}

export function createLogger(options: {
  level: string;
  name?: string;
  /** Human-readable lines (pino-pretty) instead of JSON; decided by prettyByDefault unless given. */
  pretty?: boolean;
  /** Where lines go (stdout unless given; tests pass their own). */
  destination?: DestinationStream;
}): Logger {
  const settings = {
    level: options.level,
    ...(options.name ? { name: options.name } : {}),
    redact: { paths: REDACT, censor: '[redacted]' },
  };
  if (options.pretty ?? prettyByDefault()) {
    // In this thread and synchronous (no transport worker): a line written just before an exit
    // is never lost. Redaction happens before formatting, as for JSON.
    return pino(
      settings,
      pretty({
        colorize: options.destination === undefined && process.stdout.isTTY === true,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname',
        sync: true,
        ...(options.destination ? { destination: options.destination } : {}),
      }),
    );
  }
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
