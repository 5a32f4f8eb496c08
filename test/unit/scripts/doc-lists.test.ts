import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { blockContent, DOC_LISTS, EVENT_TYPES_LIST, TOOLS_LIST, withBlock, writeDocLists } from '../../../scripts/doc-lists';
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

  it('the event types list says so for a registry without operations’ events, and holds an added operation’s own event with its data schema', () => {
    const without = OPERATIONS.filter((operation) => operation.job?.events === undefined);
    expect(EVENT_TYPES_LIST.content(without)).to.equal('\n\nNo operation of this connector declares events of its own yet.\n\n');
    const extended = EVENT_TYPES_LIST.content(EXTENDED_REGISTRY.operations);
    expect(extended).to.include('| `translation.chunked` | `translateDocument` | A chunk of a translation was translated');
    expect(extended).to.include('"chunk":{"type":"integer","minimum":1,"maximum":200}');
    expect(extended).to.include('"job_id":{"type":"string"}');
  });

  it('writeDocLists rewrites every guide whose block is stale and leaves a current one alone', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'doc-lists-'));
    mkdirSync(path.join(root, 'docs'));
    for (const list of DOC_LISTS)
      writeFileSync(path.join(root, list.file), `List (<!-- ${list.name}:start -->\`old\`<!-- ${list.name}:end -->).\n`);
    expect(writeDocLists(root, EXTENDED_REGISTRY.operations)).to.deep.equal(DOC_LISTS.map((list) => list.file));
    const file = path.join(root, TOOLS_LIST.file);
    expect(blockContent(readFileSync(file, 'utf8'), 'tools')).to.equal(TOOLS_LIST.content(EXTENDED_REGISTRY.operations));
    expect(writeDocLists(root, EXTENDED_REGISTRY.operations)).to.deep.equal([]);
  });
});
