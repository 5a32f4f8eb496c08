import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { readMarkdown } from '../support/markdown';
import { ROOT } from '../support/spawn-process';

const GUIDE = path.join(ROOT, 'docs', 'building-operations.md');
const MARKER = /^card-example:\s*(\S+)$/;

/** The code blocks of the guide's card walk-through, each with the file it is quoted from. */
const examples = readMarkdown(GUIDE).blocks.flatMap((block) => {
  const file = block.comment ? MARKER.exec(block.comment)?.[1] : undefined;
  return file ? [{ file, code: block.code, line: block.line }] : [];
});

describe('the card walk-through of docs/building-operations.md quotes the template trial’s card, which the tests run', () => {
  it('the walk-through quotes the page script and the declaration', () => {
    expect(examples.map((example) => example.file)).to.deep.equal([
      'test/support/browser/translation-card-page.ts',
      'test/support/extra-operations.ts',
    ]);
  });

  for (const example of examples)
    it(`the block at line ${example.line} is in ${example.file} as printed`, () => {
      expect(readFileSync(path.join(ROOT, example.file), 'utf8')).to.include(example.code);
    });
});
