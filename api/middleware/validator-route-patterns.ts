import pathToRegexpModule = require('path-to-regexp');

type PathToRegexp = typeof pathToRegexpModule.pathToRegexp;

/** Route templates remembered at most: the document's paths under each option set, with room to spare. */
const MOST_PATTERNS = 1000;

/** The module's own `pathToRegexp`, once replaced. */
let original: PathToRegexp | undefined;

/**
 * Makes `path-to-regexp`'s `pathToRegexp` remember what it compiled, for express-openapi-validator's route
 * lookup (5.x), which compiles on every request the template of every documented path ahead of the matching
 * one (why: docs/decisions/validator-route-patterns.md). The lookup reads the function from the module's
 * exports at each call, so replacing it there is enough.
 *
 * The result depends only on the template and the options, and its `regexp` has no `g` or `y` flag (no
 * `lastIndex` to share), so one compiled pattern serves every call. Only a string template with options of
 * plain values is remembered, at most {@link MOST_PATTERNS} of them; any other call compiles as before.
 * Installing twice is harmless. Returns the original function.
 */
export function rememberValidatorRoutePatterns(): PathToRegexp {
  if (original) return original;
  const exports = pathToRegexpModule as unknown as { pathToRegexp: PathToRegexp };
  const compile = exports.pathToRegexp;
  const patterns = new Map<string, ReturnType<PathToRegexp>>();
  exports.pathToRegexp = ((path: Parameters<PathToRegexp>[0], options?: Parameters<PathToRegexp>[1]) => {
    const key = typeof path === 'string' ? patternKey(path, options) : undefined;
    if (key === undefined) return compile(path, options);
    let pattern = patterns.get(key);
    if (!pattern) {
      pattern = compile(path, options);
      if (patterns.size < MOST_PATTERNS) patterns.set(key, pattern);
    }
    return pattern;
  }) as PathToRegexp;
  original = compile;
  return compile;
}

/** The template and its options as one string, or undefined when an option is not a plain value. */
function patternKey(path: string, options: object | undefined): string | undefined {
  let key = path;
  if (!options) return key;
  for (const name in options) {
    const value: unknown = (options as Record<string, unknown>)[name];
    if (value !== undefined && typeof value !== 'boolean' && typeof value !== 'string' && typeof value !== 'number') return undefined;
    key += `\0${name}=${String(value)}`;
  }
  return key;
}
