import { JobError } from '../../shared/platform/errors/job-error';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';

/** The safe message a scripted job fails with. */
export const SCRIPTED_FAILURE = 'This job fails on purpose.';

/**
 * The registry with createJob's processor scripted by prompt: "fail" fails at once (not retryable) with
 * {@link SCRIPTED_FAILURE}, "hold" waits for `hold` before doing the normal work, anything else is normal.
 */
export function scriptedJobs({
  hold,
  operations = OPERATIONS,
}: {
  hold?: () => Promise<void>;
  operations?: readonly Operation[];
} = {}): Operation[] {
  return operations.map((operation) =>
    operation.operationId === 'createJob'
      ? {
          ...operation,
          job: {
            operationId: operation.operationId,
            processor: (settings, own) => {
              const normal = operation.job!.processor(settings, own);
              return async (input, context) => {
                if (input.prompt === 'fail') throw new JobError(SCRIPTED_FAILURE, { retryable: false });
                if (input.prompt === 'hold') await hold?.();
                return normal(input, context);
              };
            },
          },
        }
      : operation,
  );
}
