import { expect } from 'chai';
import type { Request, Response } from 'express';
import { admission } from '../../../../api/admission/admission';
import { clientKeyOf } from '../../../../api/admission/client-key';
import { failureBudget } from '../../../../api/admission/failure-budget';
import { MemoryRateLimitStore } from '../../../../shared/adapters/memory/memory-rate-limit-store';
import type { AdmissionStore } from '../../../../shared/domain/admission/admission-store';
import type { TokenService } from '../../../../shared/domain/connections/token-service';
import { type RateLimitedError, UnauthorizedError } from '../../../../shared/platform/errors/problems';
import { Metrics } from '../../../../shared/platform/metrics/metrics';

/** Just enough of a request and a response for the budget: the client address, and headers to read back. */
function exchange(ip: string): { req: Request; res: Response; header: (name: string) => string | undefined } {
  const headers = new Map<string, string>();
  const res = {
    locals: {},
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader: (name: string, value: string) => headers.set(name.toLowerCase(), value),
  };
  return { req: { ip } as Request, res: res as unknown as Response, header: (name) => headers.get(name.toLowerCase()) };
}

/** Clients counted as the default CLIENT_IPV6_PREFIX counts them. */
const BY_64 = clientKeyOf(64);

const counted = async (metrics: Metrics, reason: string) =>
  (await metrics.authFailures.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

describe('the failed-authentication budget (unit)', () => {
  it('the first N failures of an address are answered as they are, the next with 429; another address is unaffected', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const budget = failureBudget(new MemoryRateLimitStore(), 2, metrics, BY_64);
    const answers: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const { req, res } = exchange('10.9.0.1');
      answers.push(await budget.refuse(req, res, new UnauthorizedError('invalid', 'bearer')));
    }
    expect(answers.map((a) => (a as Error).constructor.name)).to.deep.equal(['UnauthorizedError', 'UnauthorizedError', 'RateLimitedError']);
    expect((answers[2] as RateLimitedError).headers['Retry-After']).to.match(/^\d+$/);
    expect(await counted(metrics, 'invalid')).to.equal(2);
    expect(await counted(metrics, 'too_many_failures')).to.equal(1);
    const other = exchange('10.9.0.2');
    expect(await budget.refuse(other.req, other.res, new UnauthorizedError('bad_link_secret', 'link-secret'))).to.be.instanceOf(
      UnauthorizedError,
    );
  });

  it('IPv6 addresses of one /64 spend one budget; an address of the next /64 and an IPv4-mapped one have their own', async () => {
    const budget = failureBudget(new MemoryRateLimitStore(), 2, new Metrics({ defaultMetrics: false }), BY_64);
    const refuse = async (ip: string) => {
      const { req, res } = exchange(ip);
      return (await budget.refuse(req, res, new UnauthorizedError('invalid', 'bearer'))).constructor.name;
    };
    const answers: string[] = [];
    for (const rotated of ['2001:db8:5:6::1', '2001:db8:5:6:ffff::2', '2001:DB8:5:6:0:0:0:3']) answers.push(await refuse(rotated));
    expect(answers).to.deep.equal(['UnauthorizedError', 'UnauthorizedError', 'RateLimitedError']);
    expect(await refuse('2001:db8:5:7::1'), 'the next /64').to.equal('UnauthorizedError');
    expect(await refuse('::ffff:192.0.2.1'), 'an IPv4 client on a dual-stack listener').to.equal('UnauthorizedError');
  });

  it('a counted failure announces the auth-failures policy and what is left of it', async () => {
    const budget = failureBudget(new MemoryRateLimitStore(), 5, new Metrics({ defaultMetrics: false }), BY_64);
    const { req, res, header } = exchange('10.9.0.3');
    expect(await budget.spend(req, res)).to.equal(undefined);
    expect(header('RateLimit-Policy')).to.equal('"auth-failures";q=5;w=60');
    expect(header('RateLimit')).to.match(/^"auth-failures";r=4;t=\d+$/);
  });

  it('missing, expired and revoked credentials are refused as they are and never spend the budget, even past it', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const store = new MemoryRateLimitStore();
    const budget = failureBudget(store, 1, metrics, BY_64);
    for (let i = 0; i < 2; i++) {
      const spent = exchange('10.9.0.4');
      await budget.spend(spent.req, spent.res);
    }
    for (const reason of ['missing', 'expired', 'revoked'] as const) {
      const { req, res, header } = exchange('10.9.0.4');
      expect(await budget.refuse(req, res, new UnauthorizedError(reason, 'bearer'))).to.have.property('reason', reason);
      expect(header('RateLimit'), reason).to.equal(undefined);
    }
    expect(await counted(metrics, 'too_many_failures'), 'only the second spend was refused').to.equal(1);
    expect((await store.hit('authfail:10.9.0.4', 60)).count, 'the window holds the two spends and this hit').to.equal(3);
  });
});

describe('the admission step (unit)', () => {
  it('a request whose operation was never matched is refused with an error instead of being admitted', async () => {
    const { admit } = admission({
      config: { linkSecret: 'secret', rateLimitPerMinute: 10, authFailuresPerMinute: 10, clientIpv6Prefix: 64 },
      tokens: {} as TokenService,
      backend: { rateLimits: new MemoryRateLimitStore(), admissions: {} as AdmissionStore },
      metrics: new Metrics({ defaultMetrics: false }),
    });
    const { req, res } = exchange('10.9.0.5');
    let handedOn: unknown = 'next was not called';
    await admit(req, res, (error?: unknown) => {
      handedOn = error;
    });
    expect(handedOn).to.be.instanceOf(Error);
  });
});
