import { expect } from 'chai';
import {
  announceRateLimit,
  heldRateLimitHeaders,
  holdRateLimitHeaders,
  setHeldRateLimitHeaders,
} from '../../../../api/http/rate-limit-headers';
import { recordingResponse } from '../../../support/recording-response';

describe('announceRateLimit (RateLimit-Policy and RateLimit fields)', () => {
  it('one policy: its quota and window, and the remaining count and reset', () => {
    const { res, headers } = recordingResponse();
    announceRateLimit(res, { name: 'dashboard', quota: 60, windowSeconds: 60 }, { count: 5, resetInSeconds: 42 });
    expect(headers.get('ratelimit-policy')).to.equal('"dashboard";q=60;w=60');
    expect(headers.get('ratelimit')).to.equal('"dashboard";r=55;t=42');
  });

  it('a count over the quota: remaining is 0, never negative', () => {
    const { res, headers } = recordingResponse();
    announceRateLimit(res, { name: 'p', quota: 3, windowSeconds: 10 }, { count: 7, resetInSeconds: 1 });
    expect(headers.get('ratelimit')).to.equal('"p";r=0;t=1');
  });

  it('two policies on one response: both listed, in the order announced', () => {
    const { res, headers } = recordingResponse();
    announceRateLimit(res, { name: 'a', quota: 10, windowSeconds: 1 }, { count: 1, resetInSeconds: 1 });
    announceRateLimit(res, { name: 'b', quota: 100, windowSeconds: 60 }, { count: 10, resetInSeconds: 30 });
    expect(headers.get('ratelimit-policy')).to.equal('"a";q=10;w=1, "b";q=100;w=60');
    expect(headers.get('ratelimit')).to.equal('"a";r=9;t=1, "b";r=90;t=30');
  });

  it("an operation's request: two policies held in its state, not set, then written as one pair each", () => {
    const { res, headers } = recordingResponse();
    res.locals = { requestId: 'r', route: '/v1/me' };
    holdRateLimitHeaders(res);
    announceRateLimit(res, { name: 'a', quota: 10, windowSeconds: 1 }, { count: 1, resetInSeconds: 1 });
    announceRateLimit(res, { name: 'b', quota: 100, windowSeconds: 60 }, { count: 10, resetInSeconds: 30 });
    expect([...headers.keys()]).to.deep.equal([]);
    expect(heldRateLimitHeaders(res)).to.deep.equal([
      'RateLimit-Policy',
      '"a";q=10;w=1, "b";q=100;w=60',
      'RateLimit',
      '"a";r=9;t=1, "b";r=90;t=30',
    ]);
    setHeldRateLimitHeaders(res);
    expect(headers.get('ratelimit')).to.equal('"a";r=9;t=1, "b";r=90;t=30');
  });

  it("an operation's request with nothing announced: no fields to write", () => {
    const { res, headers } = recordingResponse();
    res.locals = { requestId: 'r', route: '/v1/me' };
    holdRateLimitHeaders(res);
    expect(heldRateLimitHeaders(res)).to.deep.equal([]);
    setHeldRateLimitHeaders(res);
    expect(headers.size).to.equal(0);
  });
});
