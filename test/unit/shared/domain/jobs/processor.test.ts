import { expect } from 'chai';
import * as z from 'zod';
import { JobError } from '../../../../../shared/domain/jobs/job-error';
import { buildProcessors, paidJob, RESULT_OUTSIDE_SCHEMA } from '../../../../../shared/domain/jobs/processor';

const context = {
  jobId: 'job_1',
  attempt: 1,
  progress: () => undefined,
  partial: () => undefined,
  signal: new AbortController().signal,
  emit: async () => {},
};

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

describe("a paid job's declared events, as its processor emits them", () => {
  const job = paidJob({
    operationId: 'emitting',
    input: z.strictObject({ n: z.int() }),
    events: { 'n.seen': { description: 'A number was seen.', data: z.strictObject({ n: z.int().min(0) }) } },
    processor:
      () =>
      async (input, { emit }) => {
        for (let i = 0; i < input.n; i++) await emit('n.seen', { n: i });
        return {};
      },
  });

  it('valid emits reach the attempt’s emit as their schema read them; an invalid one throws before reaching it', async () => {
    const sent: Array<[string, unknown]> = [];
    const processor = buildProcessors([job]).get('emitting')!;
    await processor({ n: 2 }, { ...context, emit: async (type, data) => void sent.push([type, data]) });
    expect(sent).to.deep.equal([
      ['n.seen', { n: 0 }],
      ['n.seen', { n: 1 }],
    ]);
    const broken = paidJob({
      ...job,
      processor:
        () =>
        async (_input, { emit }) => {
          await emit('n.seen', { n: -1 });
          return {};
        },
    });
    await buildProcessors([broken]).get('emitting')!(
      { n: 1 },
      { ...context, emit: async (type, data) => void sent.push([type, data]) },
    ).then(
      () => expect.fail('resolved'),
      (error: Error) => expect(error.name).to.equal('EventDeclarationError'),
    );
    expect(sent).to.have.length(2);
  });

  it('the 1,001st event of one attempt throws an EventDeclarationError', async () => {
    const processor = buildProcessors([job]).get('emitting')!;
    const error = await processor({ n: 1001 }, context).then(
      () => undefined,
      (thrown: Error) => thrown,
    );
    expect(error?.message).to.equal('emitting emitted more than 1000 events in one attempt');
  });
});
