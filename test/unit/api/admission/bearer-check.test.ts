import { expect } from 'chai';
import type { Request } from 'express';
import { bearerCheck } from '../../../../api/admission/bearer-check';
import type { FailureBudget } from '../../../../api/admission/failure-budget';
import { state } from '../../../../api/http/locals';
import type { Operation } from '../../../../shared/contract/operations/operation';
import type { AdmissionStore, BearerAdmission, BearerAdmissionRequest } from '../../../../shared/domain/admission/admission-store';
import type { TokenService } from '../../../../shared/domain/connections/token-service';
import { UnauthorizedError } from '../../../../shared/platform/errors/problems';
import { recordingResponse } from '../../../support/recording-response';

const CLAIMS = { subject: 'user-1', connectionId: 'conn-1', issuedAt: 1, expiresAt: 2 };

/** Runs the check for `authorization` with a token service and an admission store answering as given. */
async function admit(
  authorization: string | undefined,
  {
    admission = { outcome: 'admitted', window: { count: 1, resetInSeconds: 60 } } as BearerAdmission,
    readsUsage = false,
    claims = (): unknown => CLAIMS,
    putOff = false,
  } = {},
) {
  const asked: BearerAdmissionRequest[] = [];
  const refusals: Array<{ reason: string }> = [];
  const check = bearerCheck({
    tokens: { claims } as unknown as TokenService,
    admissions: {
      admitBearer: async (request: BearerAdmissionRequest) => {
        asked.push(request);
        return admission;
      },
    } as unknown as AdmissionStore,
    failures: {
      refuse: async (_req: unknown, _res: unknown, refusal: { reason: string }) => {
        refusals.push(refusal);
        return refusal;
      },
    } as unknown as FailureBudget,
    perMinute: 5,
    operationRate: async () => undefined,
    putOff: () => putOff,
  });
  const { res, headers } = recordingResponse();
  res.locals = { requestId: 'r', route: '/v1/me' };
  const req = { get: (name: string) => (name === 'authorization' ? authorization : undefined) } as unknown as Request;
  const thrown = await check(req, res, { readsUsage } as unknown as Operation).then(
    () => undefined,
    (error: { status?: number; reason?: string }) => error,
  );
  return { thrown, asked, refusals, headers, locals: state(res) };
}

describe('bearerCheck (admitting a bearer operation)', () => {
  it('a valid live token: admitted, the principal set, the subject window counted and announced', async () => {
    const { thrown, asked, locals, headers } = await admit('Bearer abc.def-ghi_~+/==');
    expect(thrown).to.equal(undefined);
    expect(asked).to.deep.equal([{ connectionId: 'conn-1', subject: 'user-1', rateKey: 'sub:user-1', windowSeconds: 60 }]);
    expect(locals.principal).to.deep.equal(CLAIMS);
    expect(headers.get('ratelimit')).to.equal('"subject";r=4;t=60');
  });

  it('no Authorization header, or one not in the Bearer form: refused through the budget as missing or invalid, no store call', async () => {
    for (const [header, reason] of [
      [undefined, 'missing'],
      ['Basic dXNlcg==', 'invalid'],
      ['Bearer a b', 'invalid'],
    ] as const) {
      const { thrown, asked, refusals } = await admit(header);
      expect(thrown?.status, String(header)).to.equal(401);
      expect(refusals.map((refusal) => refusal.reason)).to.deep.equal([reason]);
      expect(asked).to.deep.equal([]);
    }
  });

  it('a token the service refuses: refused through the budget with its reason; any other error passes through unspent', async () => {
    const expired = await admit('Bearer t', {
      claims: () => {
        throw new UnauthorizedError('expired', 'bearer');
      },
    });
    expect(expired.refusals.map((refusal) => refusal.reason)).to.deep.equal(['expired']);
    const bug = new Error('bug');
    const broken = await admit('Bearer t', {
      claims: () => {
        throw bug;
      },
    });
    expect([broken.thrown, broken.refusals.length]).to.deep.equal([bug, 0]);
  });

  it('a revoked connection: refused through the budget as revoked, no principal set', async () => {
    const { thrown, refusals, locals } = await admit('Bearer t', { admission: { outcome: 'revoked' } });
    expect(thrown?.status).to.equal(401);
    expect(refusals.map((refusal) => refusal.reason)).to.deep.equal(['revoked']);
    expect(locals.principal).to.equal(undefined);
  });

  it('an OAuth grant with usage read: the client joins the principal, the usage is kept, today asked for', async () => {
    const usage = { usage: { jobs_charged: 0, credits_spent: 0, credits_refunded: 0 }, day: '2026-03-02', spentOnDay: 0 };
    const client = { id: 'client-1', name: 'App' };
    const { asked, locals } = await admit('Bearer t', {
      readsUsage: true,
      admission: { outcome: 'admitted', client, usage, window: { count: 1, resetInSeconds: 60 } } as BearerAdmission,
    });
    expect(asked[0].usageDay).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(locals.principal).to.deep.equal({ ...CLAIMS, client });
    expect(locals.usage).to.equal(usage);
  });

  it('a subject over its window: 429 after admission, the headers still announced', async () => {
    const { thrown, headers } = await admit('Bearer t', { admission: { outcome: 'admitted', window: { count: 6, resetInSeconds: 9 } } });
    expect(thrown?.status).to.equal(429);
    expect(headers.get('ratelimit')).to.equal('"subject";r=0;t=9');
  });

  it('put off until the claim: no store call, the principal set, the claim’s admission asked with the quota', async () => {
    const { thrown, asked, locals } = await admit('Bearer t', { putOff: true });
    expect(thrown).to.equal(undefined);
    expect(asked).to.deep.equal([]);
    expect(locals.principal).to.deep.equal(CLAIMS);
    expect(locals.putOff?.pending).to.equal(true);
    expect(locals.putOff?.request).to.deep.equal({
      connectionId: 'conn-1',
      subject: 'user-1',
      rateKey: 'sub:user-1',
      windowSeconds: 60,
      quota: 5,
    });
  });

  it('put off, then settled by the claim: revoked is refused through the budget, over the window a 429 with its headers', async () => {
    const revoked = await admit('Bearer t', { putOff: true });
    const refusal = await revoked.locals.putOff!.settle({ outcome: 'revoked' }).then(
      () => undefined,
      (error: { reason?: string }) => error,
    );
    expect(refusal).to.deep.include({ reason: 'revoked' });
    expect(revoked.refusals.map((r) => r.reason)).to.deep.equal(['revoked']);
    const over = await admit('Bearer t', { putOff: true });
    const limited = await over.locals.putOff!.settle({ outcome: 'admitted', window: { count: 6, resetInSeconds: 9 } }).then(
      () => undefined,
      (error: { status?: number }) => error,
    );
    expect(limited).to.deep.include({ status: 429 });
    expect(over.headers.get('ratelimit')).to.equal('"subject";r=0;t=9');
  });

  it('put off, never settled: admitNow makes the admission’s own store call once', async () => {
    const { asked, locals } = await admit('Bearer t', { putOff: true });
    await locals.putOff!.admitNow();
    await locals.putOff!.admitNow();
    expect(asked).to.deep.equal([{ connectionId: 'conn-1', subject: 'user-1', rateKey: 'sub:user-1', windowSeconds: 60 }]);
  });
});
