import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** A piece of a string the code builds: literal text, or a value only known at run time. */
type Piece = { text: string } | { wildcard: true };

/** The pieces of a string expression: literals, templates, and `+` chains of them (other operands are values). */
function pieces(node: ts.Expression): Piece[] | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [{ text: node.text }];
  if (ts.isTemplateExpression(node)) {
    const out: Piece[] = [{ text: node.head.text }];
    for (const span of node.templateSpans) out.push({ wildcard: true }, { text: span.literal.text });
    return out;
  }
  if (ts.isParenthesizedExpression(node)) return pieces(node.expression);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = pieces(node.left);
    const right = pieces(node.right);
    if (!left && !right) return undefined;
    return [...(left ?? [{ wildcard: true }]), ...(right ?? [{ wildcard: true }])];
  }
  return undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Fixed text a line with run-time values must hold to count as a message (so `${x}worker` does not). */
const MIN_FIXED_WITH_VALUES = 12;

/** One pattern per line of the string: literal text must match exactly, run-time values match anything. */
function linePatterns(parts: Piece[]): RegExp[] {
  const lines = [{ pattern: '', fixed: '', values: 0 }];
  for (const part of parts) {
    const line = lines[lines.length - 1];
    if ('wildcard' in part) {
      line.pattern += '(?:.*?)';
      line.values += 1;
    } else {
      const [first, ...rest] = part.text.split('\n');
      line.pattern += escapeRegExp(first);
      line.fixed += first;
      lines.push(...rest.map((text) => ({ pattern: escapeRegExp(text), fixed: text, values: 0 })));
    }
  }
  return lines
    .filter(({ fixed, values }) => /[A-Za-z]{3}/.test(fixed) && (values === 0 || fixed.trim().length >= MIN_FIXED_WITH_VALUES))
    .map(({ pattern }) => new RegExp(`^${pattern.trim()}$`, 's'));
}

/**
 * Every message the given sources can produce, as patterns: each string literal, template and `+` chain
 * (the outermost one), split into lines, with interpolated values as wildcards.
 */
export function sourceMessagePatterns(files: readonly string[], read = (f: string) => readFileSync(f, 'utf8')): RegExp[] {
  const patterns: RegExp[] = [];
  for (const file of files) {
    const sf = ts.createSourceFile(file, read(file), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isExpression(node)) {
        const found = pieces(node);
        if (found) {
          patterns.push(...linePatterns(found));
          if (ts.isBinaryExpression(node) || ts.isParenthesizedExpression(node)) {
            ts.forEachChild(node, visit);
          }
          return;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return patterns;
}

/** True when `message` (trimmed) is, as a whole, one line the sources can produce. */
export function producedBy(patterns: readonly RegExp[], message: string): boolean {
  const wanted = message.trim();
  return patterns.some((pattern) => pattern.test(wanted));
}
