/** One place where a document refers to something outside itself. */
export interface NetworkReference {
  rule: string;
  /** The matched text, with a little context. */
  text: string;
}

/**
 * What counts as a reference to the network in a self-contained page: anywhere (script included), a
 * scheme-qualified or protocol-relative address, a CSS `url()` or `@import`; in the markup, an attribute that
 * loads something or an element that embeds or links another document. A `data:` URL is allowed where a value
 * is loaded, nothing else is.
 */
const ANYWHERE: ReadonlyArray<readonly [string, RegExp]> = [
  ['scheme address', /\b(?:https?|wss?|ftp|file|blob):\/\//gi],
  ['protocol-relative address', /(?<![:\\/])\/\/[a-z0-9-]+(?:\.[a-z0-9-]+)+/gi],
  ['CSS url()', /\burl\(\s*(?!["']?data:)/g],
  ['CSS @import', /@import/gi],
];
const IN_MARKUP: ReadonlyArray<readonly [string, RegExp]> = [
  ['loading attribute', /\s(?:src|srcset|href|action|formaction|poster|data|background)\s*=\s*(?!["']?data:)/gi],
  ['embedding element', /<(?:link|iframe|frame|embed|object|base|img|audio|video|source|track|form|portal)\b/gi],
];

function matches(text: string, rules: ReadonlyArray<readonly [string, RegExp]>): NetworkReference[] {
  return rules.flatMap(([rule, pattern]) =>
    [...text.matchAll(pattern)].map((match) => ({
      rule,
      text: text.slice(Math.max(0, match.index - 20), match.index + match[0].length + 20),
    })),
  );
}

/** Every network reference in an HTML document (its markup, inline styles and inline scripts). */
export function networkReferences(html: string): NetworkReference[] {
  const markup = html.replace(/(<script\b[^>]*>)[\s\S]*?(<\/script>)/gi, '$1$2');
  return [...matches(html, ANYWHERE), ...matches(markup, IN_MARKUP)];
}
