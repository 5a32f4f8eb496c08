import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { headingAnchors, isExternal, linkTargets, parseMarkdown, readMarkdown, resolveTarget } from '../support/markdown';
import { ROOT } from '../support/spawn-process';

/** The README's budget: what it is, how to run it, the walk-through and a map; the rest is in docs/. */
const README_MAX_BYTES = 16_000;

/** README.md, docs/*.md, and every Markdown file they link to inside the repository (to any depth). */
function pagesToCheck(): string[] {
  const docs = path.join(ROOT, 'docs');
  const pages = new Set([
    path.join(ROOT, 'README.md'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join(docs, f)),
  ]);
  for (const page of pages) {
    for (const { target } of linkTargets(readMarkdown(page))) {
      if (isExternal(target)) continue;
      const { file } = resolveTarget(page, target);
      if (file.endsWith('.md') && file.startsWith(ROOT + path.sep) && existsSync(file)) pages.add(file);
    }
  }
  return [...pages];
}

describe('the documentation', () => {
  it(`README.md is under ${README_MAX_BYTES} bytes`, () => {
    const size = statSync(path.join(ROOT, 'README.md')).size;
    expect(size, 'README.md size in bytes').to.be.below(README_MAX_BYTES);
  });

  it('every relative link and #anchor of README.md, docs/*.md and the pages they link to resolves', () => {
    const pages = pagesToCheck();
    expect(pages.length, 'pages checked').to.be.greaterThan(10);
    const anchorsOf = new Map<string, Set<string>>();
    const anchors = (file: string) => anchorsOf.get(file) ?? anchorsOf.set(file, headingAnchors(readMarkdown(file))).get(file)!;
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      const where = (line: number) => `${path.relative(ROOT, page)}:${line}`;
      for (const { target, line } of linkTargets(readMarkdown(page))) {
        if (isExternal(target)) continue;
        checked += 1;
        const { file, anchor } = resolveTarget(page, target);
        const relative = path.relative(ROOT, file);
        if (relative.startsWith('..')) broken.push(`${where(line)}: ${target} leaves the repository`);
        else if (!existsSync(file)) broken.push(`${where(line)}: ${target}: no such file`);
        else if (anchor !== undefined) {
          if (!file.endsWith('.md')) broken.push(`${where(line)}: ${target}: an anchor into a file that is not Markdown`);
          else if (!anchors(file).has(anchor)) broken.push(`${where(line)}: ${target}: no heading makes the anchor #${anchor}`);
        }
      }
    }
    expect(checked, 'relative links checked').to.be.greaterThan(50);
    expect(broken).to.deep.equal([]);
  });

  it('the checker finds GitHub anchors (case, punctuation, code, duplicates) and links outside code only', () => {
    const page = parseMarkdown(
      [
        '# OAuth 2.1: assistant apps connect with a click',
        '## Shutdown, HTTP limits and a `PUBLIC_URL` with a path',
        '## Notes',
        '## Notes',
        '<a id="custom"></a>',
        'See [the notes](#notes-1), [a file](sub/x.md#part) and ![an image](img.png "title").',
        '`[not a link](nowhere.md)`',
        '```sh',
        '# Not a heading',
        'echo "[nor a link](nowhere.md)"',
        '```',
      ].join('\n'),
    );
    expect([...headingAnchors(page)]).to.deep.equal([
      'oauth-21-assistant-apps-connect-with-a-click',
      'shutdown-http-limits-and-a-public_url-with-a-path',
      'notes',
      'notes-1',
      'custom',
    ]);
    expect(linkTargets(page)).to.deep.equal([
      { target: '#notes-1', line: 6 },
      { target: 'sub/x.md#part', line: 6 },
      { target: 'img.png', line: 6 },
    ]);
    expect(resolveTarget('/repo/docs/a.md', 'sub/x.md#part')).to.deep.equal({ file: '/repo/docs/sub/x.md', anchor: 'part' });
    expect(resolveTarget('/repo/docs/a.md', '#notes')).to.deep.equal({ file: '/repo/docs/a.md', anchor: 'notes' });
    expect(isExternal('https://example.com')).to.equal(true);
    expect(isExternal('mailto:x@example.com')).to.equal(true);
    expect(isExternal('README.md')).to.equal(false);
  });
});
