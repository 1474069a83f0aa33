import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat } from './config.js';

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

/** Whether a logger of this LOG_FORMAT writes readable lines (`auto`: see prettyByDefault). */
export function prettyLines(
  format: LogFormat = 'auto',
  env: NodeJS.ProcessEnv = process.env,
  stdout: { isTTY?: boolean } = process.stdout,
): boolean {
  return format === 'auto' ? prettyByDefault(env, stdout) : format === 'pretty';
}

/**
 * Fields a readable line leaves out: its message says what matters (a request's line is
 * `GET /path 200 12 ms`, packages/http's request log), and the rest is there in JSON.
 */
const NOT_FOR_PEOPLE = 'pid,hostname,req,res,responseTime';

export function createLogger(options: {
  level: string;
  name?: string;
  /** LOG_FORMAT: readable lines or JSON (`auto` unless given; see prettyLines). */
  format?: LogFormat;
  /** Readable lines (true) or JSON (false) whatever `format` says; tests pass it. */
  pretty?: boolean;
  /** Where lines go (stdout unless given; tests pass their own). */
  destination?: DestinationStream;
}): Logger {
  const settings = {
    level: options.level,
    ...(options.name ? { name: options.name } : {}),
    redact: { paths: REDACT, censor: '[redacted]' },
  };
  if (options.pretty ?? prettyLines(options.format)) {
    // In this thread and synchronous (no transport worker): a line written just before an exit
    // is never lost. Redaction happens before formatting, as for JSON. One line per entry: other
    // fields follow the message on the same line (an error's stack still gets its own lines).
    return pino(
      settings,
      pretty({
        colorize: options.destination === undefined && process.stdout.isTTY === true,
        translateTime: 'SYS:HH:MM:ss',
        ignore: NOT_FOR_PEOPLE,
        singleLine: true,
        sync: true,
        ...(options.destination ? { destination: options.destination } : {}),
      }),
    );
  }
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

/**
 * For what a process says at info that its caller says once for every process (a cluster
 * worker's `listening` and `stopped`, under `pnpm start`'s one banner): warnings and errors only,
 * unless the level asks for debug lines.
 */
export function warningsOnly(logger: Logger): Logger {
  return logger.isLevelEnabled('debug') ? logger : logger.child({}, { level: 'warn' });
}
