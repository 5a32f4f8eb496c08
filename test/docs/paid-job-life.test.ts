import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { readMarkdown } from '../support/markdown';
import { ROOT } from '../support/spawn-process';

/** The table rows of docs/architecture.md's "Life of a paid job". */
function lifeTableRows(): string[] {
  const prose = readMarkdown(path.join(ROOT, 'docs', 'architecture.md')).prose;
  const start = prose.findIndex((line) => line.trim() === '### Life of a paid job');
  const end = prose.findIndex((line, index) => index > start && line.startsWith('#'));
  return prose.slice(start, end).filter((line) => /^\| \d+ \|/.test(line));
}

/** Each `file` `name` pair a row names: a source file followed by a function, class or method in it. */
function namedFunctions(row: string): Array<{ file: string; name: string }> {
  const spans = [...row.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
  return spans.flatMap((span, i) =>
    /\.ts$/.test(span) && spans[i + 1] && !/\.ts$/.test(spans[i + 1]) ? [{ file: span, name: spans[i + 1] }] : [],
  );
}

describe('the life of a paid job (docs/architecture.md)', () => {
  it('every step names a file that exists and a function, class or method defined in it', () => {
    const rows = lifeTableRows();
    expect(rows.length, 'table rows').to.be.greaterThan(15);
    const named = rows.flatMap(namedFunctions);
    expect(named.length, 'file and function pairs').to.be.greaterThan(rows.length);
    const wrong = named.filter(({ file, name }) => {
      const source = path.join(ROOT, file);
      if (!existsSync(source)) return true;
      const identifier = name.split('.').at(-1)!;
      return !new RegExp(`(function|class|const|async|private|readonly|^\\s*)\\s*${identifier}\\b`, 'm').test(readFileSync(source, 'utf8'));
    });
    expect(wrong).to.deep.equal([]);
  });
});
