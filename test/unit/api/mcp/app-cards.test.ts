import { expect } from 'chai';
import { cardsOf } from '../../../../api/mcp/app-cards';
import type { AppCard } from '../../../../shared/contract/cards/app-card';
import { JOB_CARD } from '../../../../shared/contract/cards/job-card';
import { buildToolDefinitions } from '../../../../shared/contract/mcp/tool-definitions';
import { publishedOperations } from '../../../../shared/contract/operations/registry';

const card = (uri: `ui://${string}`): AppCard => ({ uri, name: 'A card', description: 'For a test.', html: async () => '<!doctype html>' });

describe('MCP Apps cards of the tools', () => {
  const tools = buildToolDefinitions(publishedOperations());

  it('the registry’s tools give each card they name once, in tool order, whatever number of tools name it', () => {
    const named = tools.flatMap((tool) => (tool.operation.card ? [tool.operation.card] : []));
    expect(cardsOf(tools)).to.deep.equal(named.filter((one, index) => named.findIndex((other) => other.uri === one.uri) === index));
  });

  it('the job card, named by several tools, is listed once', () => {
    const twice = [
      ...tools.filter((tool) => tool.operation.card === JOB_CARD),
      ...tools.filter((tool) => tool.operation.card === JOB_CARD),
    ];
    expect(twice.length).to.be.greaterThan(1);
    expect(cardsOf(twice)).to.deep.equal([JOB_CARD]);
  });

  it('two different cards under one URI are refused when the server is built', () => {
    const [first, second] = tools.filter((tool) => tool.operation.card);
    const clash = [
      { ...first, operation: { ...first.operation, card: card('ui://connector/same.html') } },
      { ...second, operation: { ...second.operation, card: card('ui://connector/same.html') } },
    ];
    expect(() => cardsOf(clash)).to.throw('two different cards share the URI ui://connector/same.html');
  });
});
