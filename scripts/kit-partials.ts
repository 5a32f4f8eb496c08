import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** The card kit's folder: its partials are `<name>.html` there. */
export const KIT_DIR = path.resolve(__dirname, '..', 'cards', 'kit');

/** A partial's use in a page's shell: `<kit-job-head waiting="…">the title's markup</kit-job-head>`. */
const USE = /<kit-([a-z][a-z0-9-]*)((?:\s+[a-z][a-z0-9-]*="[^"]*")*)\s*>([\s\S]*?)<\/kit-\1>/g;
const ATTRIBUTE = /([a-z][a-z0-9-]*)="([^"]*)"/g;
/**
 * A slot in a partial: `{{name}}`, filled by the attribute of that name, or `{{content}}` by what the use
 * encloses (nothing but white space is no content).
 */
const SLOT = /\{\{([a-z][a-z0-9-]*)\}\}/g;

/** Removes HTML comments (a note for developers) from a shell or a partial. */
export function withoutComments(html: string): string {
  return html.replace(/<!--[\s\S]*?-->\s*/g, '');
}

/** `partial` with its slots filled from `values`; a slot without a value, or a value no slot takes, is a mistake in the shell. */
function fill(name: string, partial: string, values: Record<string, string>): string {
  const used = new Set<string>();
  const html = partial.replace(SLOT, (_, slot: string) => {
    if (!Object.hasOwn(values, slot))
      throw new Error(`the kit partial ${name} needs ${slot === 'content' ? 'content' : `a ${slot} attribute`}`);
    used.add(slot);
    return values[slot];
  });
  const unused = Object.keys(values).filter((key) => !used.has(key));
  if (unused.length > 0) throw new Error(`the kit partial ${name} takes no ${unused.join(', ')}`);
  return html.trim();
}

/** The partial `name` of `dir`, without its note for developers. */
async function readPartial(dir: string, name: string): Promise<string> {
  try {
    return withoutComments(await readFile(path.join(dir, `${name}.html`), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`the card kit has no partial ${name} (${name}.html)`);
    throw error;
  }
}

/** The partial a use names, filled from the use, each line indented as the use is (so the document reads as the shell does). */
function placed(use: RegExpExecArray, shell: string, partial: string): string {
  const [, name, attributes, content] = use;
  const values: Record<string, string> = content.trim() === '' ? {} : { content };
  for (const [, attribute, value] of attributes.matchAll(ATTRIBUTE)) values[attribute] = value;
  const indent = /[ \t]*$/.exec(shell.slice(0, use.index))![0];
  return fill(name, partial, values).split('\n').join(`\n${indent}`);
}

/**
 * A page's shell (comments removed) with each use of a kit partial replaced by the partial, its slots filled:
 * the markup every job card shares is written once in `cards/kit/`. Attribute values go in as written
 * (HTML-escaped already); the content is markup. A `<kit-…>` left over (misspelt, unclosed) is refused.
 */
export async function withKitPartials(shell: string, dir: string = KIT_DIR): Promise<string> {
  const names = [...new Set([...shell.matchAll(USE)].map((use) => use[1]))];
  const partials = new Map(await Promise.all(names.map(async (name) => [name, await readPartial(dir, name)] as const)));
  let html = '';
  let next = 0;
  for (const use of shell.matchAll(USE)) {
    html += shell.slice(next, use.index) + placed(use, shell, partials.get(use[1])!);
    next = use.index + use[0].length;
  }
  html += shell.slice(next);
  const left = /<\/?kit-[^>]*>/.exec(html);
  if (left) throw new Error(`the shell has a kit partial it does not close or the kit does not have: ${left[0]}`);
  return html;
}
