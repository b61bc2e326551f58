import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger as PinoLogger } from 'pino';
import { redactForLog, redactPans } from './security/card-data';

export type Logger = PinoLogger;

export interface LoggerOptions {
  /** Log file directory (the data folder's `logs/`); omitted = no file. */
  directory?: string;
  level?: string;
  /** Also write to stdout (serve mode with --log-level). */
  stdout?: boolean;
}

/**
 * Structured logs (pino). Every line passes through redaction: Authorization headers and card
 * fields by key, card-like numbers anywhere in a string by pattern.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const targets: pino.DestinationStream[] = [];
  if (options.directory) {
    // Private like the rest of the data folder (folder 0700, file 0600).
    mkdirSync(options.directory, { recursive: true, mode: 0o700 });
    const file = join(options.directory, 'laneway.log');
    if (process.platform !== 'win32') {
      chmodSync(options.directory, 0o700);
      if (existsSync(file)) chmodSync(file, 0o600);
    }
    // Synchronous: the last lines before a crash are the ones an operator needs.
    targets.push(pino.destination({ dest: file, sync: true, mkdir: true, mode: 0o600 }));
  }
  if (options.stdout) targets.push(pino.destination(1));
  if (targets.length === 0) return pino({ level: 'silent' });
  const stream = targets.length === 1 ? targets[0]! : pino.multistream(targets.map((s) => ({ stream: s, level: level as pino.Level })));
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', '*.card_number', '*.cvv', '*.pin'],
        censor: '[redacted]',
      },
      hooks: {
        logMethod(args, method) {
          const safe = args.map((a) => (typeof a === 'string' ? redactPans(a) : redactForLog(a))) as Parameters<typeof method>;
          method.apply(this, safe);
        },
      },
      serializers: {
        err: (err: unknown) => redactForLog(err),
      },
    },
    stream,
  );
}
