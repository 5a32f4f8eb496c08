import { ResourceNotFoundError, type Server } from '@modelcontextprotocol/server';
import { APP_MIME_TYPE, type AppCard, cardResourceMeta, UI_EXTENSION } from '../../shared/contract/cards/app-card';
import type { ToolDefinition } from '../../shared/contract/mcp/tool-definitions';

/**
 * What the server declares for MCP Apps (`capabilities.extensions`): the extension, with the one view type
 * its cards are. Hosts that do not speak it ignore it, and the tool results are the same for every host.
 */
export const UI_EXTENSION_CAPABILITY = { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } };

/** The cards the tools name, each once, in tool order; two different cards under one URI are a mistake. */
export function cardsOf(tools: readonly ToolDefinition[]): AppCard[] {
  const cards = new Map<string, AppCard>();
  for (const tool of tools) {
    const card = tool.operation.card;
    if (!card) continue;
    const known = cards.get(card.uri);
    if (known && known !== card) throw new Error(`two different cards share the URI ${card.uri}`);
    cards.set(card.uri, card);
  }
  return [...cards.values()];
}

/**
 * Serves the cards as resources: `resources/list` lists them (hosts may fetch and review them before any
 * tool runs), `resources/read` answers one's HTML with its mime type and its (empty) CSP and permissions.
 */
export function registerCardResources(server: Server, cards: readonly AppCard[]): void {
  const listed = {
    resources: cards.map((card) => ({
      uri: card.uri,
      name: card.name,
      description: card.description,
      mimeType: APP_MIME_TYPE,
      _meta: cardResourceMeta(card),
    })),
  };
  server.setRequestHandler('resources/list', () => listed);
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', async (request) => {
    const card = cards.find((candidate) => candidate.uri === request.params.uri);
    if (!card) throw new ResourceNotFoundError(request.params.uri.slice(0, 200));
    return { contents: [{ uri: card.uri, mimeType: APP_MIME_TYPE, text: await card.html(), _meta: cardResourceMeta(card) }] };
  });
}
