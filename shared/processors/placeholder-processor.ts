import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Processor } from '../jobs/processor';

/**
 * The placeholder paid job: after `simulatedMs` of pretend work it returns a small result that depends only
 * on the prompt, so a retried attempt produces the same result. Replace it with real work.
 */
export function placeholderProcessor(simulatedMs: number): Processor {
  return async (input) => {
    const prompt = String(input.prompt ?? '');
    if (simulatedMs > 0) await delay(simulatedMs);
    const words = prompt.trim() === '' ? 0 : prompt.trim().split(/\s+/).length;
    return {
      summary: prompt.length > 80 ? `${prompt.slice(0, 77)}...` : prompt,
      characters: prompt.length,
      words,
      digest: createHash('sha256').update(prompt, 'utf8').digest('hex').slice(0, 16),
    };
  };
}
