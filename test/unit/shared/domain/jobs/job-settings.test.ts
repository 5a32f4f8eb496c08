import { expect } from 'chai';
import { str } from 'envalid';
import * as z from 'zod';
import { paidJobsOf } from '../../../../../shared/contract/operations/paid-jobs';
import { jobSettingVariables, loadJobSettings } from '../../../../../shared/domain/jobs/job-settings';
import { buildPolicies, type PaidJob } from '../../../../../shared/domain/jobs/processor';
import { ConfigError } from '../../../../../shared/platform/config/config-error';
import { intInRange } from '../../../../../shared/platform/config/validators';
import { REGISTRIES } from '../../../../support/extra-operations';

const tuned: PaidJob = {
  operationId: 'tuned',
  input: z.strictObject({}),
  timeoutMs: 5000,
  attempts: 1,
  backoffMs: 50,
  refundOnFailure: false,
  settings: { TUNED_WIDTH: intInRange(1, 10)({ default: 3 }), TUNED_DEPTH: intInRange(1, 10)({}) },
  processor: () => async () => ({}),
};
const plain: PaidJob = { operationId: 'plain', input: z.strictObject({}), processor: () => async () => ({}) };

describe("a paid job's own settings and policy", () => {
  it('a job’s variables are read typed, with their defaults, by operation id; a job without settings gets none', () => {
    const values = loadJobSettings({ TUNED_DEPTH: '7' }, [tuned, plain]);
    expect(values.get('tuned')).to.deep.equal({ TUNED_WIDTH: 3, TUNED_DEPTH: 7 });
    expect(values.has('plain')).to.equal(false);
  });

  it('a missing or invalid variable throws a ConfigError naming each, never echoing the value', () => {
    let error: unknown;
    try {
      loadJobSettings({ TUNED_WIDTH: '987654' }, [tuned]);
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems).to.deep.equal([
      { name: 'TUNED_WIDTH', reason: 'must be between 1 and 10' },
      { name: 'TUNED_DEPTH', reason: 'is required' },
    ]);
    expect((error as Error).message).to.not.contain('987654');
  });

  it('a variable breaking its rule is refused naming the rule: a negative number its range, a word its choices', () => {
    const ruled: PaidJob = {
      ...plain,
      settings: { RULED_STEP_MS: intInRange(0, 60_000)({ default: 0 }), RULED_MODE: str({ choices: ['fast', 'safe'], default: 'fast' }) },
    };
    expect(() => loadJobSettings({ RULED_STEP_MS: '-5', RULED_MODE: 'quick' }, [ruled]))
      .to.throw(ConfigError)
      .with.property('problems')
      .that.deep.equals([
        { name: 'RULED_STEP_MS', reason: 'must be between 0 and 60000' },
        { name: 'RULED_MODE', reason: 'must be one of fast, safe' },
      ]);
  });

  it('the policy takes each setting a job declares and the global attempts and back-off for the rest; refunds default to on', () => {
    const policies = buildPolicies([tuned, plain], { attempts: 4, backoffMs: 900 });
    expect(policies.get('tuned')).to.deep.equal({
      attempts: 1,
      backoffMs: 50,
      timeoutMs: 5000,
      refundOnFailure: false,
      cancelCharge: 'progress',
    });
    expect(policies.get('plain')).to.deep.equal({
      attempts: 4,
      backoffMs: 900,
      timeoutMs: undefined,
      refundOnFailure: true,
      cancelCharge: 'progress',
    });
  });

  it('a variable declared by two jobs is refused, naming it', () => {
    expect(() => jobSettingVariables([tuned, { ...plain, settings: { TUNED_DEPTH: intInRange(1, 5)({}) } }])).to.throw(
      /TUNED_DEPTH is declared by two paid jobs/,
    );
  });

  for (const registry of REGISTRIES) {
    it(`the variables of ${registry.name} are found from it: each paid operation's job's own, once, and they read with their defaults`, () => {
      const jobs = paidJobsOf(registry.operations);
      const declared = registry.operations.flatMap((operation) => Object.keys(operation.job?.settings ?? {}));
      expect(Object.keys(jobSettingVariables(jobs))).to.deep.equal(declared);
      // Every shipped or example setting has a default, so a process starts without any of them set.
      const values = loadJobSettings({}, jobs);
      for (const job of jobs)
        expect([...Object.keys(values.get(job.operationId) ?? {})], job.operationId).to.deep.equal(Object.keys(job.settings ?? {}));
    });
  }
});
