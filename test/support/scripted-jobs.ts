import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { JobError } from '../../shared/domain/jobs/job-error';

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
  return aroundCreateJob(operations, async (input, context, normal) => {
    if (input.prompt === 'fail') throw new JobError(SCRIPTED_FAILURE, { retryable: false });
    if (input.prompt === 'hold') await hold?.();
    return normal(input, context);
  });
}

type Processor = ReturnType<NonNullable<Operation['job']>['processor']>;

/**
 * The registry with createJob's processor wrapped by `around`, which gets each job's input and context and the
 * normal processor to call (or not); every other operation as it is.
 */
export function aroundCreateJob(
  operations: readonly Operation[],
  around: (input: Parameters<Processor>[0], context: Parameters<Processor>[1], normal: Processor) => ReturnType<Processor>,
): Operation[] {
  return operations.map((operation) =>
    operation.operationId === 'createJob'
      ? {
          ...operation,
          // Its own settings kept (PLACEHOLDER_JOB_MS and the rest reach the normal processor).
          job: {
            ...operation.job!,
            processor: (own) => {
              const normal = operation.job!.processor(own);
              return (input, context) => around(input, context, normal);
            },
          },
        }
      : operation,
  );
}
