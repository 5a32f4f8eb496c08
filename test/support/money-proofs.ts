import { expect } from 'chai';
import { waitFor } from '../testkit/wait-for';
import { type ConnectorUnderTest, newKey, newSubject } from './harness';
import { expectEntriesAddUp, moneyClient, placeholderOperation } from './money-flows';

/** Submits at once, and the number of them the balance funds exactly. */
const SUBMITS = 200;
const FUNDED = 37;

/** Starts two connectors (each an API with its worker) on one Redis, with the given variables. */
export type StartPair = (env: Record<string, string>) => Promise<[ConnectorUnderTest, ConnectorUnderTest]>;

/**
 * Issue 36's "exactly once" proof of prepaid holds: two APIs on one Redis (a node or a Cluster), the hold in the
 * claim the only thing between a balance and an overdraft.
 */
export function prepaidProof(label: string, startPair: StartPair): void {
  describe(`prepaid holds under concurrency: two APIs on one Redis [${label}]`, function () {
    this.timeout(120_000);
    let a: ConnectorUnderTest;
    let b: ConnectorUnderTest;
    const { operation, price, input } = placeholderOperation();

    before(async () => {
      [a, b] = await startPair({ BILLING_MODE: 'prepaid' });
    });
    after(async () => {
      await b?.close();
      await a?.close();
    });

    it(`${SUBMITS} submits with distinct keys at once against a balance funding ${FUNDED}: ${FUNDED} accepted, the rest 402, no hold left open once the jobs end, the entries add up`, async () => {
      const subject = newSubject();
      const token = await a.link(subject);
      await moneyClient(a).grant(subject, FUNDED * price);
      const answers = await Promise.all(
        Array.from({ length: SUBMITS }, (_, i) => moneyClient(i % 2 === 0 ? a : b).submit(token, operation, input, newKey())),
      );
      const accepted = answers.filter((res) => res.status === 202);
      const refused = answers.filter((res) => res.status === 402);
      expect(accepted).to.have.length(FUNDED);
      expect(refused).to.have.length(SUBMITS - FUNDED);
      for (const res of refused) expect(res.body.type).to.equal('urn:connector:problem:insufficient-credits');
      // Jobs may have ended meanwhile: what is held plus what was captured is what the accepted jobs took.
      const during = await moneyClient(b).statement(subject);
      const captured = during.entries.filter((entry) => entry.kind === 'capture').reduce((sum, entry) => sum + entry.credits, 0);
      expect(during.balance).to.equal(0);
      expect(during.held + captured).to.equal(FUNDED * price);
      expect(during.entries.filter((entry) => entry.kind === 'hold')).to.have.length(FUNDED);
      expectEntriesAddUp(during);
      for (const res of accepted) expect((await moneyClient(a).final(token, res.body.id)).status).to.equal('succeeded');
      for (const api of [a, b]) {
        const after = await moneyClient(api).statement(subject);
        expect({ balance: after.balance, held: after.held }).to.deep.equal({ balance: 0, held: 0 });
        expectEntriesAddUp(after);
        expect(after.entries.filter((entry) => entry.kind === 'capture')).to.have.length(FUNDED);
      }
    });

    it('grants racing spends through both APIs: every grant lands once, every accepted job holds once, and the account adds up', async () => {
      const subject = newSubject();
      const token = await a.link(subject);
      const grants = 20;
      const spends = 60;
      const racing = await Promise.all([
        ...Array.from({ length: grants }, (_, i) =>
          moneyClient(i % 2 === 0 ? a : b)
            .grant(subject, price)
            .then(() => 'grant'),
        ),
        ...Array.from({ length: spends }, (_, i) =>
          moneyClient(i % 2 === 0 ? b : a)
            .submit(token, operation, input, newKey())
            .then((res) => {
              expect(res.status, res.text).to.be.oneOf([202, 402]);
              return res.status === 202 ? (res.body.id as string) : 'refused';
            }),
        ),
      ]);
      const jobs = racing.filter((value) => value.startsWith('job_'));
      expect(jobs.length).to.be.at.most(grants);
      for (const id of jobs) await moneyClient(a).final(token, id);
      const after = await waitFor(
        async () => {
          const statement = await moneyClient(b).statement(subject);
          return statement.held === 0 ? statement : undefined;
        },
        { what: 'every hold to end' },
      );
      expectEntriesAddUp(after);
      expect(after.balance).to.equal((grants - jobs.length) * price);
      expect(after.entries.filter((entry) => entry.kind === 'grant')).to.have.length(grants);
      expect(after.entries.filter((entry) => entry.kind === 'hold')).to.have.length(jobs.length);
    });
  });
}
