import pino, { type Logger } from 'pino';
import { traceLogFields } from '../tracing/log-correlation';
import { isTracingStarted } from '../tracing/tracing-state';

/**
 * Paths that must never reach a log line: credentials in headers and bodies. pino removes them before
 * serialising, so even a debug dump of a request cannot leak them.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-link-secret"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-link-secret"]',
  'authorization',
  '*.authorization',
  '["x-link-secret"]',
  '*["x-link-secret"]',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'connectorSecret',
  'linkSecret',
  '*.connectorSecret',
  '*.linkSecret',
  // A rotation's previous values (the config keys, and the webhook settings' own).
  'connectorSecretPrevious',
  'linkSecretPrevious',
  '*.connectorSecretPrevious',
  '*.linkSecretPrevious',
  'previousSecret',
  '*.previousSecret',
  // The configuration's webhook settings, one level further down.
  '*.webhooks.secret',
  '*.webhooks.previousSecret',
  // A Redis URL may carry a password; the connection settings carry the others.
  'redisUrl',
  '*.redisUrl',
  'redis',
  '*.redis',
  'password',
  '*.password',
  'sentinelPassword',
  '*.sentinelPassword',
];

/**
 * A JSON-lines logger on stdout (or on `destination`, which tests use to capture a session), one synchronous
 * `write` per line (why: docs/decisions/synchronous-log-lines.md). When the process traces, each line written
 * inside a span carries its `trace_id` and `span_id`; otherwise no per-line hook runs at all.
 */
export function createLogger(level: string, name: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, remove: true },
      base: { service: name },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(isTracingStarted() ? { mixin: traceLogFields } : {}),
    },
    destination ?? pino.destination({ sync: true }),
  );
}
