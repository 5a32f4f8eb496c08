import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { toolName } from '../../shared/contract/mcp/tool-definitions';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { ROOT } from '../support/spawn-process';

/** The shipped tools, in registry order, as the pages name them. */
const SHIPPED_TOOLS = publishedOperations().map((operation) => toolName(operation.operationId));

describe('the MCP tool lists the docs print', () => {
  const page = readFileSync(path.join(ROOT, 'docs', 'connecting-assistants.md'), 'utf8').replace(/\s+/g, ' ');

  it('connecting-assistants.md names every shipped tool, in registry order, cancel_job included, where it lists the tools', () => {
    const listed = /one per published operation, named after its operationId in snake_case \(([^)]+)\)/.exec(page);
    expect(listed, 'the tools bullet').to.not.equal(null);
    expect(listed![1].split(', ').map((name) => name.replace(/`/g, ''))).to.deep.equal(SHIPPED_TOOLS);
  });

  it('connecting-assistants.md says the tools/list block prints the shipped tools, as the block prints them', () => {
    const printed = /The last line prints `([^`]+)`/.exec(page);
    expect(printed, 'the printed line').to.not.equal(null);
    expect(printed![1]).to.equal(SHIPPED_TOOLS.join(' '));
  });
});
