import { hash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import * as z from 'zod';
import { intInRange } from '../../platform/config/validators';
import { JobError } from '../jobs/job-error';
import { type Processor, paidJob } from '../jobs/processor';

/** The prompt prefix that makes the placeholder fail, so an integrator can see a failed job. */
export const FAIL_PREFIX = '!fail';

/** The safe message of a placeholder job failed on purpose. */
export const PLACEHOLDER_FAILURE = 'The prompt asked the job to fail.';

/** The placeholder job's input: a prompt (published as the `JobInput` component). */
export const PLACEHOLDER_INPUT = z
  .strictObject({ prompt: z.string().min(1).max(4000).describe('What the job should work on.') })
  .meta({ id: 'JobInput' });

/** What a placeholder job produces. */
export const PLACEHOLDER_RESULT = z.strictObject({
  summary: z.string().max(80).describe('The prompt, cut to 80 characters.'),
  characters: z.int().min(0).max(4000),
  words: z.int().min(0).max(4000),
  digest: z
    .string()
    .length(16)
    .regex(/^[0-9a-f]{16}$/)
    .describe('The start of the SHA-256 of the prompt, in hex.'),
});

/** Steps the simulated work is cut into by default; progress is reported after each. */
const DEFAULT_STEPS = 10;

/**
 * The placeholder paid job: `simulatedMs` of pretend work in `steps` steps, reporting progress after each and
 * stopping as soon as its signal fires, then a small result that depends only on the prompt, so a retried
 * attempt produces the same result. A prompt starting with `!fail` fails at once, without a retry. Replace
 * it with real work.
 */
export function placeholderProcessor(
  simulatedMs: number,
  steps = DEFAULT_STEPS,
): Processor<z.output<typeof PLACEHOLDER_INPUT>, z.output<typeof PLACEHOLDER_RESULT>> {
  return async (input, { progress, signal }) => {
    const prompt = String(input.prompt ?? '');
    if (prompt.startsWith(FAIL_PREFIX)) throw new JobError(PLACEHOLDER_FAILURE, { retryable: false });
    if (simulatedMs > 0) {
      progress(0, 'Started.');
      for (let step = 1; step <= steps; step++) {
        // Rejects as soon as the signal fires: the attempt stops here.
        await delay(simulatedMs / steps, undefined, { signal });
        progress(Math.round((step * 100) / steps), `Step ${step} of ${steps}.`);
      }
    }
    const trimmed = prompt.trim();
    return {
      summary: prompt.length > 80 ? `${prompt.slice(0, 77)}...` : prompt,
      characters: prompt.length,
      words: trimmed === '' ? 0 : trimmed.split(/\s+/).length,
      // One-shot hash: the same SHA-256 of the UTF-8 prompt without a Hash object per job.
      digest: hash('sha256', prompt, 'hex').slice(0, 16),
    };
  };
}

/** The placeholder's own variables: an example of a job's typed settings, read and validated at start. */
const PLACEHOLDER_SETTINGS = {
  PLACEHOLDER_JOB_MS: intInRange(0, 600_000)({ default: 2000, desc: 'simulated work of the placeholder job, in milliseconds' }),
  PLACEHOLDER_PROGRESS_STEPS: intInRange(1, 100)({ default: DEFAULT_STEPS, desc: 'steps of the placeholder job, each reporting progress' }),
};

/** The placeholder paid job, accepted by `POST /v1/jobs` (`createJob`). */
export const placeholderJob = paidJob({
  operationId: 'createJob',
  input: PLACEHOLDER_INPUT,
  result: PLACEHOLDER_RESULT,
  example: { prompt: 'Summarise my week in three lines.' },
  settings: PLACEHOLDER_SETTINGS,
  processor: (own) => placeholderProcessor(own.PLACEHOLDER_JOB_MS, own.PLACEHOLDER_PROGRESS_STEPS),
});
