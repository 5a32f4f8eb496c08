import { SpanKind } from '@opentelemetry/api';
import { expect } from 'chai';
import { inSpan } from '../../../../../shared/platform/tracing/spans';

describe('inSpan (without the tracing SDK)', () => {
  it('runs the work once and resolves with its result, handing it a span', async () => {
    let calls = 0;
    const result = await inSpan('work', { kind: SpanKind.CLIENT, attributes: { a: 1 } }, async (span) => {
      calls++;
      expect(span).to.have.property('end').that.is.a('function');
      return 42;
    });
    expect([result, calls]).to.deep.equal([42, 1]);
  });

  it('work that throws: the same error is rethrown', async () => {
    const failure = new Error('boom');
    const outcome = await inSpan('work', {}, async () => {
      throw failure;
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(outcome).to.equal(failure);
  });
});
