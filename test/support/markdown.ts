import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A fenced code block: its info string, its text, the HTML comment just before it (if any) and its line. */
export interface FencedBlock {
  readonly info: string;
  readonly code: string;
  readonly comment: string | undefined;
  readonly line: number;
}

/** A Markdown link or image target, with the line it is on. */
export interface LinkTarget {
  readonly target: string;
  readonly line: number;
}

/** The Markdown of a file split into prose lines (fences blanked) and fenced blocks. */
export interface ParsedMarkdown {
  readonly blocks: FencedBlock[];
  /** The lines outside fenced blocks; lines inside are empty strings, so indices keep their line numbers. */
  readonly prose: string[];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Splits Markdown into fenced blocks and the prose around them. */
export function parseMarkdown(text: string): ParsedMarkdown {
  const lines = text.split('\n');
  const blocks: FencedBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; info: string; start: number; comment: string | undefined; code: string[] } | undefined;
  let lastComment: { text: string; line: number } | undefined;
  lines.forEach((line, index) => {
    const fence = FENCE.exec(line);
    if (open) {
      prose.push('');
      if (fence && fence[1][0] === open.fence[0] && fence[1].length >= open.fence.length && fence[2].trim() === '') {
        blocks.push({ info: open.info, code: `${open.code.join('\n')}\n`, comment: open.comment, line: open.start + 1 });
        open = undefined;
      } else open.code.push(line);
      return;
    }
    if (fence) {
      // A comment on the line just before (blank lines not allowed between) annotates the block.
      const comment = lastComment && lastComment.line === index - 1 ? lastComment.text : undefined;
      open = { fence: fence[1], info: fence[2].trim(), start: index, comment, code: [] };
      prose.push('');
      return;
    }
    const comment = /^\s*<!--\s*(.*?)\s*-->\s*$/.exec(line);
    if (comment) lastComment = { text: comment[1], line: index };
    prose.push(line);
  });
  if (open) throw new Error(`unclosed code fence opened on line ${open.start + 1}`);
  return { blocks, prose };
}

/** Reads and parses a Markdown file. */
export function readMarkdown(file: string): ParsedMarkdown {
  return parseMarkdown(readFileSync(file, 'utf8'));
}

/** Inline code spans, HTML tags and link syntax reduced to the text GitHub shows in a heading. */
function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .replace(/(\*|_)(\S.*?)\1(?=\W|$)/g, '$2')
    .trim();
}

/**
 * The anchors GitHub gives the headings of a document: the heading's text in lower case, with every
 * character that is not a letter, mark, number, connector punctuation (`_`), hyphen or space removed, and
 * spaces turned into hyphens; a repeated anchor gets `-1`, `-2`, … in order. Explicit `<a id|name="…">`
 * anchors are included as written.
 */
export function headingAnchors(markdown: ParsedMarkdown): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const line of markdown.prose) {
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
    const heading = /^ {0,3}#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = headingText(heading[1])
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const seen = counts.get(base) ?? 0;
    counts.set(base, seen + 1);
    anchors.add(seen === 0 ? base : `${base}-${seen}`);
  }
  return anchors;
}

/** Targets of inline links and images in the prose (not in code blocks or code spans). */
export function linkTargets(markdown: ParsedMarkdown): LinkTarget[] {
  const targets: LinkTarget[] = [];
  markdown.prose.forEach((line, index) => {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      targets.push({ target: match[1], line: index + 1 });
    }
    for (const match of withoutCode.matchAll(/<a\s+href="([^"]+)"/g)) targets.push({ target: match[1], line: index + 1 });
  });
  return targets;
}

/** True for a target that leaves the repository (a URL with a scheme, or a protocol-relative one). */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

/** Splits a relative target into the file it names (resolved against `from`) and its anchor. */
export function resolveTarget(from: string, target: string): { file: string; anchor: string | undefined } {
  const hash = target.indexOf('#');
  const filePart = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  return { file: filePart === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(filePart)), anchor };
}
