import url from 'node:url';

/**
 * Settles Node's once-only `url.parse` deprecation check (DEP0169) at start, without printing it.
 *
 * Until that warning has been emitted, every `url.parse` call asks V8 for a stack trace to see whether its caller
 * sits outside `node_modules` (only such a caller is warned). express-openapi-validator calls `url.parse` on every
 * request it validates, from inside `node_modules`, so the warning is never emitted and every validated request
 * paid for the stack walk: about 3 µs, 2 % of a replayed paid job (docs/decisions/url-parse-check-settled.md).
 * One call here, with deprecation warnings switched off for its duration, marks the warning as given. The
 * project's own code never calls `url.parse` (it uses the WHATWG `URL`), so no warning meant for it is lost.
 */
export function settleUrlParseCheck(): void {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    url.parse('/');
  } finally {
    process.noDeprecation = quiet;
  }
}
