import { expect } from 'chai';
import type { Request, Response } from 'express';
import type { FailureBudget } from '../../../../api/admission/failure-budget';
import { oauthFailureBudget } from '../../../../api/admission/oauth-failures';
import { OAuthProtocolError } from '../../../../shared/domain/oauth/oauth-protocol-error';

/** Runs the middleware on `error` with a budget whose spend answers `spent`; returns spends and what went on. */
async function run(error: unknown, spent: () => Promise<unknown>) {
  let spends = 0;
  const budget = {
    spend: () => {
      spends++;
      return spent();
    },
  } as unknown as FailureBudget;
  const passed: unknown[] = [];
  await oauthFailureBudget(budget)(error, {} as Request, {} as Response, (next?: unknown) => passed.push(next));
  return { spends, passed };
}

describe('oauthFailureBudget (failed credentials at /oauth/token and /oauth/revoke)', () => {
  it('invalid_client or invalid_grant within the budget: one spend, the error goes on as it was', async () => {
    for (const code of ['invalid_client', 'invalid_grant'] as const) {
      const error = new OAuthProtocolError(code, 'no');
      expect(await run(error, async () => undefined), code).to.deep.equal({ spends: 1, passed: [error] });
    }
  });

  it("a failed credential beyond the budget: the budget's refusal goes on instead", async () => {
    const refusal = new Error('429');
    expect(await run(new OAuthProtocolError('invalid_grant', 'no'), async () => refusal)).to.deep.equal({ spends: 1, passed: [refusal] });
  });

  it('another OAuth error or any other error: nothing spent, passed on untouched', async () => {
    for (const error of [new OAuthProtocolError('invalid_request', 'bad'), new Error('bug')])
      expect(await run(error, async () => undefined)).to.deep.equal({ spends: 0, passed: [error] });
  });

  it('the store failing while spending: its error goes on, not the credential error', async () => {
    const storeError = new Error('redis down');
    const { passed } = await run(new OAuthProtocolError('invalid_client', 'no'), () => Promise.reject(storeError));
    expect(passed).to.deep.equal([storeError]);
  });
});
