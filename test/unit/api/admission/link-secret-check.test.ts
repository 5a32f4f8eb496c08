import { expect } from 'chai';
import type { Request } from 'express';
import type { FailureBudget } from '../../../../api/admission/failure-budget';
import { linkSecretCheck } from '../../../../api/admission/link-secret-check';
import type { Operation } from '../../../../shared/contract/operations/operation';
import type { RateLimitStore } from '../../../../shared/domain/admission/rate-limit-store';
import { recordingResponse } from '../../../support/recording-response';

const CURRENT = 'current-link-secret-of-32-characters!';
const PREVIOUS = 'previous-link-secret-of-32-characters';

/** Runs the check once for a request carrying `secret`, the address window at `count`; returns what happened. */
async function admit(secret: string | undefined, { count = 1, rotation = true } = {}) {
  const hits: string[] = [];
  const refusals: Array<{ status: number; reason?: string }> = [];
  let previousUses = 0;
  const check = linkSecretCheck({
    linkSecret: CURRENT,
    previousLinkSecret: rotation ? PREVIOUS : undefined,
    onPrevious: () => previousUses++,
    rateLimits: {
      hit: async (key: string) => {
        hits.push(key);
        return { count, resetInSeconds: 30 };
      },
    } as unknown as RateLimitStore,
    clientKey: () => '192.0.2.7',
    failures: {
      refuse: async (_req: unknown, _res: unknown, refusal: { status: number; reason?: string }) => {
        refusals.push(refusal);
        return refusal;
      },
    } as unknown as FailureBudget,
    perMinute: 6,
  });
  const { res, headers } = recordingResponse();
  const req = { get: (name: string) => (name === 'x-link-secret' ? secret : undefined) } as unknown as Request;
  const thrown = await check(req, res, {} as Operation).then(
    () => undefined,
    (error: { status: number }) => error,
  );
  return { thrown, hits, refusals, previousUses, headers };
}

describe('linkSecretCheck (admitting the dashboard)', () => {
  it('the current secret: admitted, the address window counted once and announced (10x the per-minute quota)', async () => {
    const { thrown, hits, previousUses, headers } = await admit(CURRENT);
    expect(thrown).to.equal(undefined);
    expect(hits).to.deep.equal(['ip:192.0.2.7']);
    expect(previousUses).to.equal(0);
    expect(headers.get('ratelimit-policy')).to.equal('"address";q=60;w=60');
  });

  it('the previous secret during a rotation: admitted, and the previous use reported once', async () => {
    const { thrown, previousUses } = await admit(PREVIOUS);
    expect([thrown, previousUses]).to.deep.equal([undefined, 1]);
  });

  it('the previous secret once the rotation is over: refused like any wrong secret', async () => {
    const { thrown, refusals } = await admit(PREVIOUS, { rotation: false });
    expect(thrown?.status).to.equal(401);
    expect(refusals).to.have.length(1);
  });

  it('a wrong or missing secret: the failure budget decides the answer, given a 401 for bad_link_secret', async () => {
    for (const secret of ['wrong', undefined]) {
      const { thrown, refusals } = await admit(secret);
      expect(thrown?.status, String(secret)).to.equal(401);
      expect(refusals.map((refusal) => [refusal.status, refusal.reason])).to.deep.equal([[401, 'bad_link_secret']]);
    }
  });

  it('an address over its window: 429 before the secret is even compared, whatever it is', async () => {
    const { thrown, refusals, previousUses } = await admit(CURRENT, { count: 61 });
    expect(thrown?.status).to.equal(429);
    expect([refusals.length, previousUses]).to.deep.equal([0, 0]);
  });
});
