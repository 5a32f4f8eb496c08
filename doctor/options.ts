import { parseArgs } from 'node:util';

/** What one doctor run examines. */
export interface DoctorOptions {
  /** Where the doctor sends its requests. */
  url: string;
  /** The PUBLIC_URL the connector must publish; the same as `url` unless checking from inside a cluster. */
  publicUrl: string;
  linkSecret?: string;
  /** The API's `/metrics`, for the rules that read it (a previous secret still configured). */
  metricsUrl?: string;
  json: boolean;
  timeoutMs: number;
}

/** A parse that ends the run before any request: help, or a usage error. */
export type ParsedArgs = { options: DoctorOptions } | { help: string } | { error: string };

/** Environment variables the doctor reads (the helm test pod sets them). */
export const ENV_PUBLIC_URL = 'CONNECTOR_DOCTOR_PUBLIC_URL';
export const ENV_LINK_SECRET = 'CONNECTOR_DOCTOR_LINK_SECRET';
export const ENV_METRICS_URL = 'CONNECTOR_DOCTOR_METRICS_URL';

export const USAGE = `Usage: connector-doctor <URL> [--public-url <PUBLIC_URL>] [--link-secret <secret>] [--metrics-url <url>] [--json] [--timeout-ms <ms>]

Checks a deployed connector the way GPT Actions, Claude and ChatGPT apps and the dashboard will.
Prints one PASS, WARN or FAIL line per rule; exits 0 only when nothing fails.

  <URL>                 where to reach the connector (normally its PUBLIC_URL)
  --public-url <url>    the PUBLIC_URL it must publish, when <URL> is another address for it
                        (e.g. the in-cluster Service); env ${ENV_PUBLIC_URL}
  --link-secret <s>     the dashboard's LINK_SECRET: also mint a token for a throwaway subject, check
                        /v1/me and MCP with it, then revoke it; env ${ENV_LINK_SECRET} (preferred:
                        a command-line argument is visible to other users of the machine)
  --metrics-url <url>   the API's /metrics (its METRICS_PORT): warn when a previous secret is still
                        configured (a rotation not finished); env ${ENV_METRICS_URL}
  --json                print the results as JSON
  --timeout-ms <ms>     per-request timeout (default 10000)`;

function absoluteHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Parses the command line and the environment. Pure: no request is made and nothing is printed. */
export function parseDoctorArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ParsedArgs {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: USAGE };
  if (positionals.length !== 1) return { error: 'expected exactly one URL' };
  const urls = urlsOf(positionals[0]!, values, env);
  const badUrl = firstBadUrl(urls);
  if (badUrl) return { error: badUrl };
  const timeoutMs = values['timeout-ms'] === undefined ? 10_000 : Number(values['timeout-ms']);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) return { error: '--timeout-ms must be a positive integer' };
  const [[, url], [, publicUrl], metrics] = urls;
  return {
    options: {
      url,
      publicUrl,
      linkSecret: fromEither(values['link-secret'], env[ENV_LINK_SECRET]),
      ...(metrics ? { metricsUrl: metrics[1] } : {}),
      json: values.json === true,
      timeoutMs,
    },
  };
}

/** The option, else the environment variable when it is set and not empty. */
function fromEither(option: string | undefined, variable: string | undefined): string | undefined {
  return option ?? (variable || undefined);
}

/** The URL, the public URL (default: the URL) and, when given, the metrics URL, each with its name. */
function urlsOf(
  url: string,
  values: ReturnType<typeof parseCommandLine>['values'],
  env: Readonly<Record<string, string | undefined>>,
): Array<readonly [string, string]> {
  const metricsUrl = fromEither(values['metrics-url'], env[ENV_METRICS_URL]);
  return [
    ['URL', url],
    ['public URL', fromEither(values['public-url'], env[ENV_PUBLIC_URL]) ?? url],
    ...(metricsUrl === undefined ? [] : [['metrics URL', metricsUrl] as const]),
  ];
}

function parseCommandLine(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      'public-url': { type: 'string' },
      'link-secret': { type: 'string' },
      'metrics-url': { type: 'string' },
      json: { type: 'boolean', default: false },
      'timeout-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

/** The usage error for the first of the named URLs that is not an absolute http(s) URL, if any. */
function firstBadUrl(urls: ReadonlyArray<readonly [string, string]>): string | undefined {
  const bad = urls.find(([, value]) => !absoluteHttpUrl(value));
  return bad && `the ${bad[0]} ${JSON.stringify(bad[1])} is not an absolute http(s) URL`;
}
