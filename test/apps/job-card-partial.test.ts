import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { JOB_CARD } from '../../shared/contract/cards/job-card';
import { EXTENDED_REGISTRY, PARTIAL_TAIL } from '../support/extra-operations';
import { newKey, newSubject } from '../support/harness';
import { connectMcp } from '../support/mcp-client';
import { waitFor } from '../testkit/wait-for';
import type { OpenCard } from './support/card-host';
import { useCardStand } from './support/card-stand';
import { hostContext } from './support/host-themes';

/** 30 chunks of 100 distinct letters: the tail a partial result shows says which chunks are done. */
const TEXT = Array.from({ length: 30 }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(100)).join('');

/*
 * The template trial's translation publishes the chunks translated so far; the job card, refreshing through
 * get_job in the host, renders each partial result as it comes ("So far"), and the final result replaces it.
 * 30 chunks of 600 ms: 18 s, several of the card's 2-second refreshes once it is mounted.
 */
describe('the job card renders partial results as they come (the official AppBridge in headless Chromium)', function () {
  this.timeout(60_000);
  const stand = useCardStand({ TRANSLATE_CHUNK_CHARACTERS: '100', TRANSLATE_CHUNK_MS: '600' }, EXTENDED_REGISTRY.operations);
  let opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const thing of opened.reverse()) await thing.close();
    opened = [];
  });

  async function showTranslation(client: Client): Promise<OpenCard> {
    const tool = (await client.listTools()).tools.find((candidate) => candidate.name === 'translate_document')!;
    // The translation has a card of its own; the job card, which every job's get_job shows, is the one under test.
    const [resource] = (await client.readResource({ uri: JOB_CARD.uri })).contents;
    expect((resource as { text?: string }).text, 'the job card is served').to.be.a('string');
    const args = { input: { text: TEXT, target_language: 'fr' }, idempotency_key: newKey() };
    const created = (await client.callTool({ name: 'translate_document', arguments: args })) as CallToolResult;
    expect(created.isError ?? false, JSON.stringify(created)).to.equal(false);
    const card = await stand.host.open({
      client,
      html: (resource as { text: string }).text,
      hostContext: hostContext('light', tool),
      toolArguments: args,
      toolResult: created,
    });
    opened.push(card);
    return card;
  }

  it('a running translation shows "So far" with the chunks done, growing from one refresh to the next; once it succeeds the result replaces it', async () => {
    const client = await connectMcp(`${stand.connector.baseUrl}/mcp`, await stand.connector.link(newSubject()), '2026-07-28', { ui: true });
    opened.push(client);
    const card = await showTranslation(client);
    const partial = card.frame.locator('[data-testid="partial"]');
    const field = (name: string) => partial.locator(`dt:text-is("${name}") + dd`);
    const seen: number[] = [];
    await waitFor(
      async () => {
        if (await partial.isHidden()) return seen.length >= 2;
        const done = Number(await field('chunks_done').textContent());
        expect(await field('chunks').textContent()).to.equal('30');
        const tail = TEXT.slice(0, done * 100).slice(-PARTIAL_TAIL);
        expect(await field('translated_tail').textContent()).to.equal(tail.length > 200 ? `${tail.slice(0, 199)}…` : tail);
        if (seen.at(-1) !== done) seen.push(done);
        return seen.length >= 2;
      },
      { what: 'two partial results in the card', timeoutMs: 25_000, intervalMs: 100 },
    );
    expect(seen[1]).to.be.above(seen[0]);
    expect(await partial.locator('h2').textContent()).to.equal('So far');
    await card.frame.waitForSelector('[data-testid="status"][data-status="succeeded"]', { timeout: 25_000 });
    await card.frame.locator('[data-testid="result"]').waitFor({ state: 'visible' });
    expect(await partial.isHidden(), 'the result replaces the partial').to.equal(true);
    expect(await card.frame.locator('[data-testid="result"] dt:text-is("chunks") + dd').textContent()).to.equal('30');
    expect(card.problems, 'stray requests, page and console errors').to.deep.equal([]);
  });
});
