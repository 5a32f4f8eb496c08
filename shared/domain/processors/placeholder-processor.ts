import { hash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { PaidJob, Processor } from '../jobs/processor';

/**
 * The placeholder paid job: after `simulatedMs` of pretend work it returns a small result that depends only
 * on the prompt, so a retried attempt produces the same result. Replace it with real work.
 */
export function placeholderProcessor(simulatedMs: number): Processor {
  return async (input, context) => {
    const prompt = String(input.prompt ?? '');
    // A cancel stops the pretend work at once: the delay rejects when the signal fires.
    if (simulatedMs > 0) await delay(simulatedMs, undefined, { signal: context.signal });
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

/** The placeholder paid job, accepted by `POST /v1/jobs` (`createJob`). */
export const placeholderJob: PaidJob = {
  operationId: 'createJob',
  processor: (settings) => placeholderProcessor(settings.placeholderJobMs),
};
