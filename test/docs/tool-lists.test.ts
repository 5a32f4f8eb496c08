import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { blockContent, DOC_LISTS } from '../../scripts/doc-lists';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { ROOT } from '../support/spawn-process';

describe('the lists of shipped things the docs print, in marked blocks', () => {
  for (const list of DOC_LISTS) {
    it(`${list.file}: the <!-- ${list.name}:start --> block is what the registry gives (after adding an operation: npx tsx scripts/doc-lists.ts)`, () => {
      const text = readFileSync(path.join(ROOT, list.file), 'utf8');
      const held = blockContent(text, list.name);
      expect(held, `${list.file} has no ${list.name} block`).to.not.equal(undefined);
      expect(held, `${list.file}: run npx tsx scripts/doc-lists.ts`).to.equal(list.content(OPERATIONS));
    });
  }

  it('connecting-assistants.md names no shipped tool outside its tools block, so the block is the one list to keep', () => {
    const text = readFileSync(path.join(ROOT, 'docs', 'connecting-assistants.md'), 'utf8');
    const outside = text.replace(/<!-- tools:start -->[\s\S]*?<!-- tools:end -->/, '');
    expect(outside).to.not.match(/get_me list_things/);
    expect(outside).to.not.match(/`list_things`, `create_thing`/);
  });
});
