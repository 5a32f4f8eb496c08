import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { McpUiTheme } from '@modelcontextprotocol/ext-apps';
import { expect } from 'chai';
import type { Frame } from 'playwright-core';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import {
  FAIL_PREFIX,
  PLACEHOLDER_FAILURE,
  placeholderJob,
  placeholderProcessor,
} from '../../shared/domain/processors/placeholder-processor';
import { expectCancelRefund } from '../support/cancel-refund';
import type { Revision } from '../support/mcp-client';
import { waitFor } from '../testkit/wait-for';
import { expectBothThemes, showToolCard, useCardStand } from './support/card-stand';
import { HOST_VARIABLES, THEMES, themeChange } from './support/host-themes';
import { screenshotTarget } from './support/screenshots';

/**
 * The registry with the placeholder job made slow and fine-grained: 30 s in 60 steps of 500 ms, so the card,
 * refreshing at the job's poll interval, sees the progress move on every refresh, and the job is still running
 * when the test presses Cancel.
 */
function slowPlaceholder(): Operation[] {
  return OPERATIONS.map((operation) =>
    operation.job?.operationId === placeholderJob.operationId
      ? { ...operation, job: { ...operation.job, processor: () => placeholderProcessor(30_000, 60) } }
      : operation,
  );
}

/** The page's globals that the probes below use, typed here because the tests compile without the DOM's. */
type InPage = { getComputedStyle(element: unknown): { backgroundColor: string } };

/** The card's `<progress>` value once it exceeds `above` (the card refreshes every few seconds). */
function progressAbove(frame: Frame, above: number): Promise<number> {
  return waitFor(
    async () => {
      const value = Number((await frame.locator('[data-testid="progress"]').getAttribute('value')) ?? Number.NaN);
      return value > above ? value : undefined;
    },
    { what: `the card's progress to pass ${above}`, timeoutMs: 15_000, intervalMs: 100 },
  );
}

/** The card document's computed background colour. */
const background = (frame: Frame) =>
  frame.locator('body').evaluate((body) => (globalThis as unknown as InPage).getComputedStyle(body).backgroundColor);

/** Waits until the card's background is `colour`. */
const backgroundBecomes = (frame: Frame, colour: string | undefined) =>
  waitFor(async () => (await background(frame)) === colour, { what: `the card's background to become ${colour}`, intervalMs: 50 });

describe('the job card in an MCP Apps host (the official AppBridge in headless Chromium) against a connector', function () {
  this.timeout(60_000);
  const stand = useCardStand({}, slowPlaceholder());
  /** What a test opened, closed after it whatever happened. */
  let opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const thing of opened.reverse()) await thing.close();
    opened = [];
  });

  /**
   * What a person sees right after asking an assistant with the extension for a paid job: a session for a new
   * person, create_job called through it, and the card its tool names, read and mounted by the host in `theme`.
   */
  async function showNewJob(theme: McpUiTheme, revision: Revision, prompt = 'Summarise the quarterly report for the board') {
    const shown = await showToolCard(stand, opened, { theme, revision, toolName: 'create_job', input: { prompt } });
    expect(shown.card.mounted.appName, 'the view introduced itself').to.be.a('string').and.not.equal('');
    return shown;
  }

  /** One theme's whole story; returns the card's background in that theme. */
  async function watchAndCancel(theme: McpUiTheme, revision: Revision): Promise<string> {
    const { token, job, card } = await showNewJob(theme, revision);
    const { frame } = card;
    const byTestId = (id: string) => frame.locator(`[data-testid="${id}"]`);

    // Running, with its cost, and the progress moving from one refresh (get_job through the host) to the next.
    await frame.waitForSelector('[data-testid="status"][data-status="running"]');
    expect(await byTestId('status').getAttribute('role')).to.equal('status');
    expect(await byTestId('cost').textContent()).to.include(String(job.cost));
    const first = await progressAbove(frame, 0);
    const later = await progressAbove(frame, first);
    expect(later).to.be.greaterThan(first);
    expect(await byTestId('progress-message').textContent()).to.match(/^Step \d+ of 60\.$/);
    expect(
      card.toolCalls.some((call) => call.name === 'get_job' && call.arguments?.id === job.id),
      'get_job through the host',
    ).to.equal(true);

    // The host's background; the other theme's once the host switches, then this one's again.
    const own = HOST_VARIABLES[theme]['--color-background-primary']!;
    const other = THEMES.find((candidate) => candidate !== theme)!;
    const shown = await background(frame);
    expect(shown).to.equal(own);
    await card.changeHostContext(themeChange(other));
    await backgroundBecomes(frame, HOST_VARIABLES[other]['--color-background-primary']);
    await card.changeHostContext(themeChange(theme));
    await backgroundBecomes(frame, own);

    const shot = screenshotTarget(theme);
    mkdirSync(path.dirname(shot), { recursive: true });
    await card.page.locator('iframe#card').screenshot({ path: shot });
    expect(statSync(shot).size, 'screenshot written').to.be.greaterThan(0);

    // Cancel, through the host: the card shows the cancellation and what was given back (a late cancel keeps
    // the share its progress says was done, so a running 1-credit job may get nothing back: no refund row then),
    // and no longer offers Cancel. The REST API agrees.
    await byTestId('cancel').click();
    await frame.waitForSelector('[data-testid="status"][data-status="canceled"]');
    expect(card.toolCalls.filter((call) => call.name === 'cancel_job').map((call) => call.arguments)).to.deep.equal([{ id: job.id }]);
    const rest = await stand.connector.call('GET', `/v1/jobs/${job.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status, rest.text).to.equal(200);
    expect(rest.body).to.include({ status: 'canceled' });
    const refunded = expectCancelRefund(rest.body, job.id);
    if (refunded > 0) {
      await byTestId('refund').waitFor({ state: 'visible' });
      expect(await byTestId('refund').textContent()).to.include(String(refunded));
    } else expect(await byTestId('refund').isHidden(), 'no refund row when nothing was given back').to.equal(true);
    // The late cancel's line: what it kept of the percent the job showed, and what it gave back.
    await byTestId('kept').waitFor({ state: 'visible' });
    const kept = rest.body.cost - refunded;
    const keptWords = kept === 0 ? 'nothing' : `${kept} ${kept === 1 ? 'credit' : 'credits'}`;
    expect(await byTestId('kept').textContent()).to.equal(
      `Canceled at ${rest.body.progress.percent} %: ${keptWords} kept, ${refunded === 0 ? 'nothing' : refunded} refunded`,
    );
    expect(await byTestId('cancel').isHidden(), 'Cancel hidden once final').to.equal(true);
    expect(await byTestId('finished').getAttribute('datetime')).to.be.a('string');
    expect(card.problems, 'stray requests, page and console errors').to.deep.equal([]);

    // And the guard would have seen one: a request the card's document makes now is refused and reported.
    const stray = `http://203.0.113.7/${theme}`;
    const answered = await frame.evaluate(
      (url) =>
        fetch(url).then(
          () => true,
          () => false,
        ),
      stray,
    );
    expect(answered, 'a stray request answered').to.equal(false);
    expect(card.problems).to.include.members([`request outside the harness: GET ${stray}`, `request from the card: GET ${stray}`]);
    return shown;
  }

  it('light and dark hosts side by side, on the 2025 and 2026 revisions: each card initialises and shows its running job (status, cost, moving progress) in its host’s colours, Cancel cancels the job and the card shows what was given back (the REST API agrees), and nothing leaves the iframe, errs or logs an error', async () => {
    await expectBothThemes(watchAndCancel);
  });

  it('a job that fails: the card shows the failure and its safe message, the refund, no result and no Cancel', async () => {
    const { job, card } = await showNewJob('light', '2026-07-28', `${FAIL_PREFIX} on purpose`);
    const byTestId = (id: string) => card.frame.locator(`[data-testid="${id}"]`);
    await card.frame.waitForSelector('[data-testid="status"][data-status="failed"]');
    await byTestId('error').waitFor({ state: 'visible' });
    expect(await byTestId('error').textContent()).to.include(PLACEHOLDER_FAILURE);
    expect(await byTestId('refund').textContent()).to.include(String(job.cost));
    expect(await byTestId('result').isHidden(), 'no result').to.equal(true);
    expect(await byTestId('cancel').isHidden(), 'no Cancel').to.equal(true);
    expect(card.problems, 'stray requests, page and console errors').to.deep.equal([]);
  });
});
