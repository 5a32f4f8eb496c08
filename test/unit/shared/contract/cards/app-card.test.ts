import { expect } from 'chai';
import { type AppCard, cardResourceMeta, cardToolMeta } from '../../../../../shared/contract/cards/app-card';
import { JOB_CARD } from '../../../../../shared/contract/cards/job-card';

const card = (uri: `ui://${string}`): AppCard => ({ uri, name: 'A card', description: 'For a test.', html: async () => '<!doctype html>' });

describe('the MCP Apps metadata of a card (shared/contract/cards/app-card.ts)', () => {
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
