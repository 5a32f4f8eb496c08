import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { blockContent, TOOLS_LIST, withBlock, writeDocLists } from '../../../scripts/doc-lists';
import { toolName } from '../../../shared/contract/mcp/tool-definitions';
import { OPERATIONS } from '../../../shared/contract/operations/registry';
import { EXTENDED_REGISTRY, EXTRA_OPERATIONS } from '../../support/extra-operations';

describe('the doc lists script', () => {
  it('blockContent reads the text between a block’s markers, and undefined without them', () => {
    expect(blockContent('a <!-- x:start -->b<!-- x:end --> c', 'x')).to.equal('b');
    expect(blockContent('a <!-- x:start -->b', 'x')).to.equal(undefined);
  });

  it('withBlock replaces only the block’s content, and throws for a text without the block', () => {
    expect(withBlock('a <!-- x:start -->b<!-- x:end --> c', 'x', 'd')).to.equal('a <!-- x:start -->d<!-- x:end --> c');
    expect(() => withBlock('a', 'x', 'd')).to.throw('no <!-- x:start --> … <!-- x:end --> block');
  });

  it('the tools list is every published operation’s tool, in registry order, an added one included', () => {
    expect(TOOLS_LIST.content(OPERATIONS)).to.match(/^`get_me`, `list_things`, /);
    const added = EXTRA_OPERATIONS.map((operation) => `\`${toolName(operation.operationId)}\``).join(', ');
    expect(added).to.match(/^`echo_note`, `count_words`, /);
    expect(TOOLS_LIST.content(EXTENDED_REGISTRY.operations).endsWith(`, ${added}`)).to.equal(true);
  });

  it('writeDocLists rewrites a guide whose block is stale and leaves a current one alone', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'doc-lists-'));
    mkdirSync(path.join(root, 'docs'));
    const file = path.join(root, TOOLS_LIST.file);
    writeFileSync(file, 'Tools (<!-- tools:start -->`old`<!-- tools:end -->).\n');
    expect(writeDocLists(root, EXTENDED_REGISTRY.operations)).to.deep.equal([TOOLS_LIST.file]);
    expect(blockContent(readFileSync(file, 'utf8'), 'tools')).to.equal(TOOLS_LIST.content(EXTENDED_REGISTRY.operations));
    expect(writeDocLists(root, EXTENDED_REGISTRY.operations)).to.deep.equal([]);
  });
});
