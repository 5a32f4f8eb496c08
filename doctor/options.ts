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
  let parsed;
  try {
    parsed = parseArgs({
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
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: USAGE };
  if (positionals.length !== 1) return { error: 'expected exactly one URL' };
  const url = positionals[0]!;
  const publicUrl = values['public-url'] ?? (env[ENV_PUBLIC_URL] || undefined) ?? url;
  const metricsUrl = values['metrics-url'] ?? (env[ENV_METRICS_URL] || undefined);
  for (const [name, value] of [
    ['URL', url],
    ['public URL', publicUrl],
    ...(metricsUrl === undefined ? [] : [['metrics URL', metricsUrl] as const]),
  ] as const) {
    if (!absoluteHttpUrl(value)) return { error: `the ${name} ${JSON.stringify(value)} is not an absolute http(s) URL` };
  }
  const timeoutMs = values['timeout-ms'] === undefined ? 10_000 : Number(values['timeout-ms']);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) return { error: '--timeout-ms must be a positive integer' };
  const linkSecret = values['link-secret'] ?? (env[ENV_LINK_SECRET] || undefined);
  return {
    options: { url, publicUrl, linkSecret, ...(metricsUrl === undefined ? {} : { metricsUrl }), json: values.json === true, timeoutMs },
  };
}
