import * as z from 'zod';
import type { Operation } from '../../shared/contract/operations/operation';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { fixedPrice } from '../../shared/domain/jobs/price';
import { paidJob } from '../../shared/domain/jobs/processor';
import type { Services } from '../../shared/domain/services';
import { InsufficientCreditsError } from '../../shared/platform/errors/problems';

/** Where the test operation below sends a person short of credits. */
export const TEST_TOP_UP_URL = 'https://dashboard.example.com/top-up';

/** The price of the test operation below, in credits. */
export const SHORT_JOB_PRICE = 2;

/** Subjects the test operation below lets through: a test adds one when its "person" has bought credits. */
export const TOPPED_UP = new Set<string>();

const shortJob = paidJob({
  operationId: 'runShortJob',
  input: z.strictObject({ note: z.string().min(1).max(100).describe('Any note.') }),
  result: z.strictObject({ note: z.string().max(100) }),
  example: { note: 'funded at last' },
  processor: () => async (input) => ({ note: input.note }),
});

const funded = paidOperation({
  job: shortJob,
  path: '/v1/short-jobs',
  summary: 'Run a job the balance is short for (2 credits)',
  description: 'A test job: refused for lack of credits until its subject has topped up. Ask the person first. Answers 202.',
  price: fixedPrice(SHORT_JOB_PRICE),
});

/**
 * A paid operation whose handler finds the funds short, as the prepaid submission does, until the test marks
 * its subject topped up ({@link TOPPED_UP}); then it accepts the job as usual. It lets the MCP top-up flow be
 * tested without depending on how balances are kept.
 */
export const runShortJob: Operation = {
  ...funded,
  handle: async (request: Parameters<typeof funded.handle>[0], services: Services) => {
    if (!TOPPED_UP.has(request.principal.subject)) throw new InsufficientCreditsError(0, SHORT_JOB_PRICE, TEST_TOP_UP_URL);
    return funded.handle(request, services);
  },
} as Operation;
