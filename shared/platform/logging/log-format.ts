/** How a process writes its log lines. */
export type LogFormat = 'json' | 'pretty';

/**
 * The log format of `npm run dev`: human-readable lines when stdout is a terminal (someone is reading),
 * JSON lines otherwise (a pipe, a file, a test harness or a log shipper parses them). `LOG_FORMAT=json` or
 * `LOG_FORMAT=pretty` overrides the guess; any other value is ignored. Production entry points never ask:
 * they always write JSON.
 */
export function devLogFormat(stdoutIsTty: boolean | undefined, override: string | undefined): LogFormat {
  if (override === 'json' || override === 'pretty') return override;
  return stdoutIsTty === true ? 'pretty' : 'json';
}
