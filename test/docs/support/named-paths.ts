import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** A repository path named in a comment or a page, with where it is named. */
export interface NamedPath {
  readonly path: string;
  readonly line: number;
}

/** The repository's top folders a path may start with; paths elsewhere (dist/, /etc/, node_modules/) are not ours. */
const TOP_FOLDERS = ['api', 'worker', 'shared', 'doctor', 'scripts', 'test', 'docs', 'bench', 'charts', 'examples'];

/**
 * A path from a top folder: segments of letters, digits, `.`, `_` and `-`, ending in an extension or a `/`. Not
 * after a character a longer path or a word would have (`../shared/x.ts`, `dist/shared/x.js`), and not
 * followed by one a pattern would (`test/**`, `shared/.../x.ts`, `<name>`, `{a,b}`). A full stop after it
 * ends the sentence.
 */
const NAMED_PATH = new RegExp(
  `(?<![\\w./@~$-])(?:${TOP_FOLDERS.join('|')})/(?:[\\w-][\\w.-]*/)*(?:[\\w-][\\w.-]*\\.[a-z]{1,5}\\b|(?<=/))(?![\\w*<{/-]|\\.[\\w.])`,
  'g',
);

/** A file name alone (`job-lifecycle.ts`, `claim-12.lua`, `redis.md`), kebab case, not part of a path. */
const FILE_NAME = /(?<![\w./@~$-])[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:\.[a-z0-9]+)*\.(?:ts|lua|md)\b(?![\w*<{/-]|\.[\w.])/g;

/** The file names a text names alone, line by line (the first line is `firstLine`). */
export function namedFileNames(text: string, firstLine = 1): NamedPath[] {
  return text
    .split('\n')
    .flatMap((line, index) => [...line.matchAll(FILE_NAME)].map((match) => ({ path: match[0], line: firstLine + index })));
}

/** The repository paths a text names, line by line (the first line is `firstLine`). */
export function namedPaths(text: string, firstLine = 1): NamedPath[] {
  return text
    .split('\n')
    .flatMap((line, index) => [...line.matchAll(NAMED_PATH)].map((match) => ({ path: match[0], line: firstLine + index })));
}

const K = ts.SyntaxKind;
/** Tokens after which a `/` divides; after any other it opens a regular expression. */
const DIVISION_AFTER = new Set<ts.SyntaxKind>([
  ...[K.Identifier, K.NumericLiteral, K.BigIntLiteral, K.StringLiteral, K.RegularExpressionLiteral],
  ...[K.NoSubstitutionTemplateLiteral, K.TemplateTail, K.CloseParenToken, K.CloseBracketToken, K.CloseBraceToken],
  ...[K.ThisKeyword, K.SuperKeyword, K.TrueKeyword, K.FalseKeyword, K.NullKeyword, K.PlusPlusToken, K.MinusMinusToken],
]);

/**
 * A TypeScript or JavaScript file's comments, each with the line it starts on: TypeScript's scanner, told where
 * a `/` opens a regular expression and where a `}` resumes a template, so no string or pattern reads as one.
 */
export function sourceComments(text: string): Array<{ text: string; line: number }> {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const lineOf = lineCounter(text);
  const comments: Array<{ text: string; line: number }> = [];
  const open: Array<'brace' | 'template'> = [];
  let previous: ts.SyntaxKind = K.Unknown;
  for (let kind = scanner.scan(); kind !== K.EndOfFileToken; kind = scanner.scan()) {
    if (kind === K.SingleLineCommentTrivia || kind === K.MultiLineCommentTrivia) {
      comments.push({ text: scanner.getTokenText(), line: lineOf(scanner.getTokenStart()) });
    } else if (kind !== K.WhitespaceTrivia && kind !== K.NewLineTrivia) {
      previous = significant(scanner, kind, previous, open);
    }
  }
  return comments;
}

/** The line (from 1) of each position of `text`, asked in increasing order. */
function lineCounter(text: string): (position: number) => number {
  let line = 1;
  let counted = 0;
  return (position) => {
    for (; counted < position; counted += 1) if (text.charCodeAt(counted) === 10) line += 1;
    return line;
  };
}

/** The token as the parser would read it, keeping `open` (the braces and template substitutions) up to date. */
function significant(
  scanner: ts.Scanner,
  scanned: ts.SyntaxKind,
  previous: ts.SyntaxKind,
  open: Array<'brace' | 'template'>,
): ts.SyntaxKind {
  let kind = scanned;
  if ((kind === K.SlashToken || kind === K.SlashEqualsToken) && !DIVISION_AFTER.has(previous)) kind = scanner.reScanSlashToken();
  if (kind === K.TemplateHead) open.push('template');
  else if (kind === K.OpenBraceToken) open.push('brace');
  else if (kind === K.CloseBraceToken && open.pop() === 'template') {
    kind = scanner.reScanTemplateToken(false);
    if (kind === K.TemplateMiddle) open.push('template');
  }
  return kind;
}

/** A Lua file's comments (`--` to the end of the line, `--[[ … ]]`), each with the line it starts on. */
export function luaComments(text: string): Array<{ text: string; line: number }> {
  const comments: Array<{ text: string; line: number }> = [];
  const pattern = /--\[\[[\s\S]*?\]\]|--[^\n]*/g;
  for (const match of text.matchAll(pattern)) {
    comments.push({ text: match[0], line: text.slice(0, match.index).split('\n').length });
  }
  return comments;
}

/**
 * Markdown without its link targets (`](…)`), which the link check resolves relative to the page, and without
 * the files a worked example (or a variant of it) writes (`<!-- worked-example: <file> -->`, `<!-- events-example: <file> -->`), which its own test checks.
 */
export function withoutLinkTargets(markdown: string): string {
  return markdown.replace(/\]\([^)\n]*\)/g, ']()').replace(/<!-- ([a-z]+-example): [^\n]*-->/g, '<!-- $1 -->');
}

/** The section of the changelog still being written: from its first `## ` heading to the next. */
export function latestChangelogSection(changelog: string): { text: string; firstLine: number } {
  const lines = changelog.split('\n');
  const start = lines.findIndex((line) => line.startsWith('## '));
  const next = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  return { text: lines.slice(start, next < 0 ? undefined : next).join('\n'), firstLine: start + 1 };
}

/** Folders no search goes into: dependencies, build output, git's own. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git']);

/** Every file under `dir` (relative to `root`) whose name ends with one of `endings`, skipping {@link SKIPPED_FOLDERS}. */
export function filesUnder(root: string, dir: string, endings: readonly string[]): string[] {
  const full = path.join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : filesUnder(root, relative, endings);
    return endings.some((ending) => entry.name.endsWith(ending)) ? [relative] : [];
  });
}

/** Build output inside the repository, named before it is built: the bench's compiled copy. */
const BUILT_FOLDERS = ['bench/dist/'];

/** Whether `named` exists in `root`: a `.js` file by its `.ts` source, build output always. */
export function pathExists(root: string, named: string): boolean {
  if (BUILT_FOLDERS.some((folder) => named.startsWith(folder))) return true;
  return existsSync(path.join(root, named)) || (named.endsWith('.js') && existsSync(path.join(root, `${named.slice(0, -3)}.ts`)));
}

/** `file:line: path` for every named path of `file` that does not exist in `root`. */
export function missingPaths(root: string, file: string, named: readonly NamedPath[]): string[] {
  return named.filter((named) => !pathExists(root, named.path)).map((named) => `${file}:${named.line}: ${named.path}`);
}

/** The comments of a source file (TypeScript or Lua) as text blocks with their first line. */
export function commentsOf(file: string, text: string = readFileSync(file, 'utf8')): Array<{ text: string; line: number }> {
  return file.endsWith('.lua') ? luaComments(text) : sourceComments(text);
}
