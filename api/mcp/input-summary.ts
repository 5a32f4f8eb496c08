/** The longest summary a confirmation shows. */
export const MAX_SUMMARY_LENGTH = 300;
const MAX_TEXT = 80;
/** Argument names whose values a summary never shows. */
const HIDDEN = /key|secret|token|password|credential/i;

/**
 * A tool call's input as the person reads it in a confirmation: each argument by name, long text cut short,
 * nested values counted rather than shown, the idempotency key and anything named like a secret left out,
 * and the whole bounded to {@link MAX_SUMMARY_LENGTH} characters.
 */
export function inputSummary(args: Record<string, unknown>, depth = 0): string {
  const parts = Object.entries(args)
    .filter(([name]) => !HIDDEN.test(name))
    .map(([name, value]) => `${name}: ${valueSummary(value, depth)}`);
  return cut(parts.join(', '), MAX_SUMMARY_LENGTH);
}

/** `text` cut to `max` characters (code points, so no pair is split), the cut marked with an ellipsis. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${[...text].slice(0, max - 1).join('')}…`;
}

function valueSummary(value: unknown, depth: number): string {
  if (typeof value === 'string') return JSON.stringify(cut(value, MAX_TEXT));
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  if (value !== null && typeof value === 'object') return depth === 0 ? `{${inputSummary(value as Record<string, unknown>, 1)}}` : '{…}';
  return String(value);
}
