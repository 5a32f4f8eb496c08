import type { CallToolResult } from '@modelcontextprotocol/client';
import type { McpUiTheme } from '@modelcontextprotocol/ext-apps';
import { expect } from 'chai';
import type { Operation } from '../../../shared/contract/operations/operation';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../../support/harness';
import { connectMcp, REVISIONS, type Revision } from '../../support/mcp-client';
import { CardHost, type OpenCard } from './card-host';
import { hostContext, THEMES } from './host-themes';
import { readCard } from './read-card';

/** What a card suite runs against: a connector on the memory backend and an MCP Apps host in headless Chromium. */
export interface CardStand {
  readonly connector: ConnectorUnderTest;
  readonly host: CardHost;
}

/**
 * Registers the suite's `before` and `after` hooks for a {@link CardStand}: the connector (with `env` over the
 * test defaults, serving `operations`) and the host start side by side, as Chromium's launch is the slow half;
 * if either fails, the other is closed before the hook fails. Read the stand inside a test or a later hook.
 */
export function useCardStand(env: Record<string, string>, operations: readonly Operation[]): CardStand {
  let started: CardStand | undefined;
  before(async function () {
    this.timeout(60_000);
    const [connector, host] = await Promise.allSettled([startConnector('memory', env, { operations }), CardHost.start()]);
    if (connector.status === 'fulfilled' && host.status === 'fulfilled') {
      started = { connector: connector.value, host: host.value };
      return;
    }
    if (connector.status === 'fulfilled') await connector.value.close();
    if (host.status === 'fulfilled') await host.value.close();
    throw connector.status === 'rejected' ? connector.reason : (host as PromiseRejectedResult).reason;
  });
  after(async () => {
    await started?.host.close();
    await started?.connector.close();
  });
  return {
    get connector() {
      if (!started) throw new Error('the card stand is not started: read it inside a test or a later hook');
      return started.connector;
    },
    get host() {
      if (!started) throw new Error('the card stand is not started: read it inside a test or a later hook');
      return started.host;
    },
  };
}

/** A paid tool's card as a person first sees it: their token, the tool's answer (the job), the card and its page. */
export interface ShownCard {
  token: string;
  job: { id: string; cost: number };
  card: OpenCard;
  html: string;
}

/**
 * A new person calls the paid tool `toolName` with `input` through an MCP session of `revision`; the host reads
 * the card the tool names and mounts it in `theme`. The session and the card go to `opened`, for the suite to close.
 */
export async function showToolCard(
  stand: CardStand,
  opened: Array<{ close(): Promise<void> }>,
  { theme, revision, toolName, input }: { theme: McpUiTheme; revision: Revision; toolName: string; input: Record<string, unknown> },
): Promise<ShownCard> {
  const token = await stand.connector.link(newSubject());
  const client = await connectMcp(`${stand.connector.baseUrl}/mcp`, token, revision);
  opened.push(client);
  const tool = (await client.listTools()).tools.find((candidate) => candidate.name === toolName);
  expect(tool, `${toolName} in tools/list`).to.not.equal(undefined);
  const resource = await readCard(client, tool!);
  const args = { input, idempotency_key: newKey() };
  const created = (await client.callTool({ name: toolName, arguments: args })) as CallToolResult;
  expect(created.isError ?? false, JSON.stringify(created)).to.equal(false);
  const card = await stand.host.open({
    client,
    ...resource,
    hostContext: hostContext(theme, tool!),
    toolArguments: args,
    toolResult: created,
  });
  opened.push(card);
  return { token, job: created.structuredContent as ShownCard['job'], card, html: resource.html };
}

/**
 * Runs one card scenario per theme side by side, each host on one of the revisions the connector serves (most of
 * each one's time is waiting for the card's next refresh), and expects every one to pass and the two hosts'
 * backgrounds, which each scenario returns, to differ.
 */
export async function expectBothThemes(scenario: (theme: McpUiTheme, revision: Revision) => Promise<string>): Promise<void> {
  const outcomes = await Promise.allSettled(THEMES.map((theme, i) => scenario(theme, REVISIONS[i])));
  const failed = outcomes.flatMap((outcome, i) => (outcome.status === 'rejected' ? [`${THEMES[i]}: ${outcome.reason}`] : []));
  expect(failed).to.deep.equal([]);
  const [light, dark] = outcomes.map((outcome) => (outcome as PromiseFulfilledResult<string>).value);
  expect(light, 'light and dark backgrounds').to.not.equal(dark);
}
