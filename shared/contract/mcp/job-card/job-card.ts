import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppCard } from './app-card';
import { bundleJobCard } from './bundle-job-card';

/** The file `npm run build` writes the bundled card to, next to this module's compiled form in dist/. */
export const JOB_CARD_FILE = 'job-card.html';

let loading: Promise<string> | undefined;

/**
 * The card's HTML: the file the build wrote next to this module (dist/, the image), or, when the server runs
 * from the sources (`npm run dev`, the tests), bundled on first use. Either way read once and kept.
 */
export function jobCardHtml(): Promise<string> {
  loading ??= readFile(path.join(__dirname, JOB_CARD_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    return bundleJobCard();
  });
  // A failed attempt is not kept: the next read tries again.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/**
 * The job card: one job's status, progress, cost and refund, its result or error, with Cancel and a refresh
 * through the host while it runs. Every tool that answers a job names it unless its operation has a card
 * of its own.
 */
export const JOB_CARD: AppCard = {
  uri: 'ui://connector/job-card.html',
  name: 'Job card',
  description: 'One job as a card: its status and progress, what it cost and any refund, its result or error; Cancel while it runs.',
  html: jobCardHtml,
};
