import type { PaidJob } from '../jobs/processor';
import { placeholderJob } from './placeholder-processor';

/**
 * Every paid job the worker runs. A paid operation in the registry names its job (`Operation.job`), and the
 * worker builds its processors from this list, so it never loads a route or a handler: add your job here too
 * (`test/unit/layers.test.ts` fails when the two disagree).
 */
export const PAID_JOBS: readonly PaidJob[] = [placeholderJob];
