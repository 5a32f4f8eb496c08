import type { McpUiTheme } from '@modelcontextprotocol/ext-apps';
import { expect } from 'chai';
import type { Frame } from 'playwright-core';
import { JOB_CARD } from '../../shared/contract/cards/job-card';
import { toolName } from '../../shared/contract/mcp/tool-definitions';
import { expectCancelRefund } from '../support/cancel-refund';
import { EXTENDED_REGISTRY, TRANSLATION_CARD, translateDocument } from '../support/extra-operations';
import { newSubject } from '../support/harness';
import { connectMcp, type Revision } from '../support/mcp-client';
import { waitFor } from '../testkit/wait-for';
import type { OpenCard } from './support/card-host';
import { expectBothThemes, showToolCard, useCardStand } from './support/card-stand';
import { HOST_VARIABLES, THEMES, themeChange } from './support/host-themes';
import { readCard } from './support/read-card';

/** A text of 60 chunks at the settings below: about 24 s of work, so Cancel finds it running. */
const LONG_TEXT = 'Bonjour. '.repeat(666).slice(0, 5990);

/** The page's globals the probe below uses, typed here because the tests compile without the DOM's. */
type InPage = { getComputedStyle(element: unknown): { backgroundColor: string } };

const background = (frame: Frame) =>
  frame.locator('body').evaluate((body) => (globalThis as unknown as InPage).getComputedStyle(body).backgroundColor);

const backgroundBecomes = (frame: Frame, colour: string | undefined) =>
  waitFor(async () => (await background(frame)) === colour, { what: `the card's background to become ${colour}`, intervalMs: 50 });

/** The card's `<progress>` value once it exceeds `above` (the kit refreshes the job every couple of seconds). */
function progressAbove(frame: Frame, above: number): Promise<number> {
  return waitFor(
    async () => {
      const value = Number((await frame.locator('[data-testid="progress"]').getAttribute('value')) ?? Number.NaN);
      return value > above ? value : undefined;
    },
    { what: `the card's progress to pass ${above}`, timeoutMs: 15_000, intervalMs: 100 },
  );
}

describe('an operation’s own card (the template trial’s translateDocument and its page in test/support/browser/) in an MCP Apps host (the official AppBridge in headless Chromium)', function () {
  this.timeout(60_000);
  // 100 characters a chunk at 400 ms each: the long text takes 60 chunks, the short one a single chunk.
  const stand = useCardStand({ TRANSLATE_CHUNK_CHARACTERS: '100', TRANSLATE_CHUNK_MS: '400' }, EXTENDED_REGISTRY.operations);
  let opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const thing of opened.reverse()) await thing.close();
    opened = [];
  });

  /** A new person asks for a translation of `text` through MCP; the host reads the card its tool names and mounts it. */
  async function showTranslation(theme: McpUiTheme, revision: Revision, text: string) {
    const input = { text, target_language: 'fr' };
    return showToolCard(stand, opened, { theme, revision, toolName: toolName(translateDocument.operationId), input });
  }

  it('its tool names its own ui:// card, which resources/list lists beside the job card and resources/read serves as one document bundled from its page with the card kit', async () => {
    const client = await connectMcp(`${stand.connector.baseUrl}/mcp`, await stand.connector.link(newSubject()), '2026-07-28');
    opened.push(client);
    const tool = (await client.listTools()).tools.find((candidate) => candidate.name === toolName(translateDocument.operationId));
    expect(tool?._meta?.ui).to.deep.equal({ resourceUri: TRANSLATION_CARD.uri });
    const listed = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(listed).to.include.members([TRANSLATION_CARD.uri, JOB_CARD.uri]);
    const { html } = await readCard(client, tool!);
    expect(html).to.include('Translation into').and.include('--card-bg').and.include('connector-translation-card');
    expect(html).to.not.include('CARD-S');
  });

  /** One theme's story: the running translation, its refresh, the host's colours and a theme switch, then Cancel. */
  async function watchAndCancel(theme: McpUiTheme, revision: Revision): Promise<string> {
    const { token, job, card } = await showTranslation(theme, revision, LONG_TEXT);
    const { frame } = card;
    const byTestId = (id: string) => frame.locator(`[data-testid="${id}"]`);

    await frame.waitForSelector('[data-testid="status"][data-status="running"]');
    expect(await byTestId('language').textContent()).to.equal('fr');
    expect(await byTestId('cost').textContent()).to.equal(`${job.cost} credits`);
    const first = await progressAbove(frame, 0);
    expect(await progressAbove(frame, first)).to.be.greaterThan(first);
    expect(await byTestId('progress-message').textContent()).to.match(/^Chunk \d+ of 60 translated\.$/);
    expect(calls(card, 'get_job').length, 'get_job through the host').to.be.greaterThan(0);

    const own = HOST_VARIABLES[theme]['--color-background-primary']!;
    const other = THEMES.find((candidate) => candidate !== theme)!;
    const shown = await background(frame);
    expect(shown).to.equal(own);
    await card.changeHostContext(themeChange(other));
    await backgroundBecomes(frame, HOST_VARIABLES[other]['--color-background-primary']);
    await card.changeHostContext(themeChange(theme));
    await backgroundBecomes(frame, own);

    await byTestId('cancel').click();
    await frame.waitForSelector('[data-testid="status"][data-status="canceled"]');
    expect(calls(card, 'cancel_job')).to.deep.equal([{ id: job.id }]);
    const rest = await stand.connector.call('GET', `/v1/jobs/${job.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.body).to.include({ status: 'canceled' });
    const refunded = expectCancelRefund(rest.body, job.id);
    if (refunded > 0)
      expect(await byTestId('refund').textContent()).to.equal(`(${refunded} ${refunded === 1 ? 'credit' : 'credits'} refunded)`);
    expect(await byTestId('cancel').isHidden(), 'Cancel hidden once final').to.equal(true);
    expect(await byTestId('translated').isHidden(), 'no translation').to.equal(true);
    expect(card.problems, 'stray requests, page and console errors').to.deep.equal([]);
    return shown;
  }

  it('light and dark hosts on the 2025 and 2026 revisions: the card shows the running translation (language, cost, progress moving through get_job) in its host’s colours and follows a theme switch; Cancel cancels it through cancel_job (the REST API agrees) and nothing leaves the iframe or errs', async () => {
    await expectBothThemes(watchAndCancel);
  });

  it('a translation that finishes: the card shows it succeeded with its text and chunk count, full progress, and no Cancel', async () => {
    const text = 'Good morning, and thank you for the flowers.';
    const { card } = await showTranslation('dark', '2026-07-28', text);
    const byTestId = (id: string) => card.frame.locator(`[data-testid="${id}"]`);
    await card.frame.waitForSelector('[data-testid="status"][data-status="succeeded"]');
    await byTestId('translated').waitFor({ state: 'visible' });
    expect(await byTestId('translated-text').textContent()).to.equal(text);
    expect(await byTestId('chunks').textContent()).to.equal('1 chunk');
    expect(await byTestId('progress').getAttribute('value')).to.equal('100');
    expect(await byTestId('cancel').isHidden(), 'no Cancel').to.equal(true);
    expect(card.problems, 'stray requests, page and console errors').to.deep.equal([]);
  });
});

/** The arguments of each call the card made to `name` through the host. */
function calls(card: OpenCard, name: string): Array<Record<string, unknown> | undefined> {
  return card.toolCalls.filter((call) => call.name === name).map((call) => call.arguments);
}
