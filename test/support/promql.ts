/**
 * Just enough PromQL reading for the chart tests: the series selectors (`name{label op "value", ...}`) of
 * an expression, so a test can check each queried metric and label against what the services export.
 */

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface Selector {
  metric: string;
  matchers: Matcher[];
}

const SELECTOR = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}/g;
const MATCHER = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*$/;

/**
 * Every selector of `expr`. Throws when a `{` is not preceded by a metric name or a matcher cannot be read,
 * so a query the reader does not understand fails the test instead of being skipped.
 */
export function selectors(expr: string): Selector[] {
  const found: Selector[] = [];
  for (const match of expr.matchAll(SELECTOR)) {
    const matchers = match[2]
      .split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)
      .filter((part) => part.trim() !== '')
      .map((part) => {
        const m = MATCHER.exec(part);
        if (!m) throw new Error(`cannot read the matcher ${JSON.stringify(part)} in ${expr}`);
        return { label: m[1], op: m[2] as Matcher['op'], value: m[3] };
      });
    found.push({ metric: match[1], matchers });
  }
  const braces = (expr.match(/\{/g) ?? []).length;
  if (braces !== found.length) throw new Error(`${braces} selectors in ${expr}, but only ${found.length} with a metric name`);
  if (count(expr, '(') !== count(expr, ')') || count(expr, '[') !== count(expr, ']')) throw new Error(`unbalanced brackets in ${expr}`);
  return found;
}

function count(text: string, ch: string): number {
  return text.split(ch).length - 1;
}

/** The metric of a Grafana `label_values(metric, label)` variable query. */
export function labelValuesMetric(query: string): { metric: string; label: string } {
  const match = /^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)$/.exec(query.trim());
  if (!match) throw new Error(`not a label_values(metric, label) query: ${query}`);
  return { metric: match[1], label: match[2] };
}
