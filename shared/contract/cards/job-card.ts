import { pageCard } from './page-card';

/**
 * The job card: one job's status, progress, cost and refund, its result or error, with Cancel and a refresh
 * through the host while it runs. Every tool that answers a job names it unless its operation has a card
 * of its own.
 */
export const JOB_CARD = pageCard({
  uri: 'ui://connector/job-card.html',
  name: 'Job card',
  description: 'One job as a card: its status and progress, what it cost and any refund, its result or error; Cancel while it runs.',
  page: 'cards/job-card/job-card.html',
});
