import { expect } from 'chai';
import * as z from 'zod';
import { JobError } from '../../../../../shared/domain/jobs/job-error';
import { buildProcessors, paidJob, RESULT_OUTSIDE_SCHEMA } from '../../../../../shared/domain/jobs/processor';

const context = { jobId: 'job_1', attempt: 1, progress: () => undefined, partial: () => undefined, signal: new AbortController().signal };

describe("a paid job's declared result", () => {
  it('a result outside the job’s result schema fails the attempt with a safe, final JobError; one inside passes unchanged', async () => {
    const job = paidJob({
      operationId: 'checked',
      input: z.strictObject({ n: z.int() }),
      result: z.strictObject({ doubled: z.int().max(10) }),
      processor: () => async (input) => ({ doubled: input.n * 2 }),
    });
    const processor = buildProcessors([job]).get('checked')!;
    expect(await processor({ n: 4 }, context)).to.deep.equal({ doubled: 8 });
    const failure = await processor({ n: 6 }, context).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(JobError);
    expect(failure).to.include({ message: RESULT_OUTSIDE_SCHEMA, retryable: false });
  });
});
