import { expect } from 'chai';
import { cardsOf } from '../../../../api/mcp/app-cards';
import { type AppCard, cardResourceMeta, cardToolMeta } from '../../../../shared/contract/mcp/job-card/app-card';
import { JOB_CARD } from '../../../../shared/contract/mcp/job-card/job-card';
import { buildToolDefinitions } from '../../../../shared/contract/mcp/tool-definitions';
import { publishedOperations } from '../../../../shared/contract/operations/registry';

const card = (uri: `ui://${string}`): AppCard => ({ uri, name: 'A card', description: 'For a test.', html: async () => '<!doctype html>' });

describe('MCP Apps cards of the tools', () => {
  const tools = buildToolDefinitions(publishedOperations());

  it('the registry’s tools name the job card once between them, whatever number of tools name it', () => {
    expect(tools.filter((tool) => tool.operation.card === JOB_CARD).length).to.be.greaterThan(1);
    expect(cardsOf(tools)).to.deep.equal([JOB_CARD]);
  });

  it('two different cards under one URI are refused when the server is built', () => {
    const [first, second] = tools.filter((tool) => tool.operation.card);
    const clash = [
      { ...first, operation: { ...first.operation, card: card('ui://connector/same.html') } },
      { ...second, operation: { ...second.operation, card: card('ui://connector/same.html') } },
    ];
    expect(() => cardsOf(clash)).to.throw('two different cards share the URI ui://connector/same.html');
  });

  it('a tool names its card in _meta.ui.resourceUri and the flat key older hosts read', () => {
    expect(cardToolMeta(JOB_CARD)).to.deep.equal({ ui: { resourceUri: JOB_CARD.uri }, 'ui/resourceUri': JOB_CARD.uri });
  });

  it('a card asks for no origin and no permission unless it says so, and for a border by default', () => {
    expect(cardResourceMeta(card('ui://connector/a.html'))).to.deep.equal({
      ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, permissions: {}, prefersBorder: true },
    });
    const open = {
      ...card('ui://connector/b.html'),
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { clipboardWrite: {} },
      prefersBorder: false,
    };
    expect(cardResourceMeta(open).ui).to.deep.include({ permissions: { clipboardWrite: {} }, prefersBorder: false });
    expect((cardResourceMeta(open).ui as { csp: Record<string, string[]> }).csp.connectDomains).to.deep.equal(['https://api.example.com']);
  });
});
