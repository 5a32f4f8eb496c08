import type { Client, Tool } from '@modelcontextprotocol/client';
import type { McpUiResourcePermissions } from '@modelcontextprotocol/ext-apps';
import { expect } from 'chai';
import { APP_MIME_TYPE } from '../../../shared/contract/cards/app-card';

/** What a host mounts: the card's document and the permissions its resource asks for. */
export interface CardResource {
  html: string;
  permissions?: McpUiResourcePermissions;
}

/** The card a tool names in `_meta.ui.resourceUri`, read from the connector as a host reads it. */
export async function readCard(client: Client, tool: Tool): Promise<CardResource> {
  const uri = (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  expect(uri, `${tool.name} names its card`)
    .to.be.a('string')
    .and.match(/^ui:\/\//);
  const { contents } = await client.readResource({ uri: uri! });
  expect(contents, 'resources/read contents').to.have.length(1);
  const [card] = contents;
  expect(card.mimeType).to.equal(APP_MIME_TYPE);
  expect(card, 'the card is text').to.have.property('text').that.is.a('string');
  const ui = card._meta?.ui as { permissions?: McpUiResourcePermissions } | undefined;
  return { html: (card as { text: string }).text, permissions: ui?.permissions };
}
