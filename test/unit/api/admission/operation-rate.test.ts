import { expect } from 'chai';
import { operationRate, refuseOverOperationRate } from '../../../../api/admission/operation-rate';
import { MemoryRateLimitStore } from '../../../../shared/adapters/memory/memory-rate-limit-store';
import type { Operation } from '../../../../shared/contract/operations/operation';
import type { RateWindow } from '../../../../shared/domain/admission/rate-limit-store';
import { RateLimitedError } from '../../../../shared/platform/errors/problems';

const limited = { operationId: 'countWords', limits: { perMinute: 2 } } as unknown as Operation;
const free = { operationId: 'getMe' } as unknown as Operation;

describe('api/admission/operation-rate', () => {
  it('an operation without its own limit is not counted: no store call, nothing to refuse', async () => {
    const hits: string[] = [];
    const check = operationRate({
      hit: async (key: string): Promise<RateWindow> => {
        hits.push(key);
        return { count: 1, resetInSeconds: 60 };
      },
    });
    expect(await check(free, 'a@example.com')).to.equal(undefined);
    expect(hits).to.deep.equal([]);
    expect(() => refuseOverOperationRate(free, undefined)).to.not.throw();
  });

  it('each call hits the operation’s own window for its subject; the call past perMinute is a 429 naming the operation', async () => {
    const check = operationRate(new MemoryRateLimitStore());
    const first = await check(limited, 'a@example.com');
    expect(first?.policy).to.deep.equal({ name: 'op-countWords', quota: 2, windowSeconds: 60 });
    expect(first?.window.count).to.equal(1);
    refuseOverOperationRate(limited, await check(limited, 'a@example.com'));
    expect((await check(limited, 'b@example.com'))?.window.count, 'another subject has its own window').to.equal(1);
    const third = await check(limited, 'a@example.com');
    expect(() => refuseOverOperationRate(limited, third))
      .to.throw(RateLimitedError)
      .with.property('extensions')
      .that.deep.equals({ operation: 'countWords', limit: 2, window_seconds: 60 });
  });
});
