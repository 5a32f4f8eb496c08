import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import * as z from 'zod';
import type { Operation } from '../../shared/contract/operations/operation';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { fixedPrice, priceOf } from '../../shared/domain/jobs/price';
import { CANCEL_CHARGES, type CancelCharge, paidJob } from '../../shared/domain/jobs/processor';
import { FAIL_PREFIX, placeholderJob } from '../../shared/domain/processors/placeholder-processor';
import { waitFor } from '../testkit/wait-for';
import { withOperations } from './extra-operations';
import { type CallResult, type ConnectorOptions, type ConnectorUnderTest, newKey, newSubject } from './harness';
import type { JobClient } from './job-submission';
import { parseExposition } from './prometheus-text';

/** The percent the cancel-charge operations report before they wait for their cancel. */
export const REPORTED_PERCENT = 37;
/** Their price: 37 % of it is 3.7 credits, which a charge by progress rounds up to 4. */
export const HOLDER_PRICE = 10;

/**
 * A paid operation per cancel charge, each reporting {@link REPORTED_PERCENT} and then working until it is
 * canceled: what a cancel while running keeps is then known.
 */
function holderOperation(charge: CancelCharge): Operation {
  const name = `hold${charge[0].toUpperCase()}${charge.slice(1)}`;
  return paidOperation({
    job: paidJob({
      operationId: name,
      input: z.strictObject({ note: z.string().min(1).max(20) }),
      example: { note: 'wait' },
      cancelCharge: charge,
      processor:
        () =>
        async (_input, { progress, signal }) => {
          progress(REPORTED_PERCENT, 'Part done.');
          await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
          return {};
        },
    }),
    path: `/v1/holds/${charge}`,
    summary: `Work until canceled (${charge})`,
    description: 'Works until the person cancels it; for tests of what a cancel keeps.',
    price: fixedPrice(HOLDER_PRICE),
  });
}

/** One operation per cancel charge, by charge. */
export const HOLDERS: ReadonlyMap<CancelCharge, Operation> = new Map(CANCEL_CHARGES.map((charge) => [charge, holderOperation(charge)]));

/** The shipped registry with the cancel-charge operations: what a connector of these flows serves. */
export const MONEY_REGISTRY: readonly Operation[] = withOperations(OPERATIONS, [...HOLDERS.values()]);

/** The registry's placeholder operation (the one whose `!fail` prompt fails), and its price for its example, read from its rule. */
export function placeholderOperation(): { operation: Operation; price: number; input: Record<string, unknown> } {
  const operation = OPERATIONS.find((candidate) => candidate.job === placeholderJob);
  if (!operation?.price || !placeholderJob.example) throw new Error('the registry has no placeholder operation');
  const input = placeholderJob.example as Record<string, unknown>;
  return { operation, price: priceOf(operation.price, input), input };
}

/** What a cancel while running keeps of `price` at `percent`, as the contract states it. */
export function expectedKept(price: number, charge: CancelCharge, percent: number): number {
  if (charge === 'none') return 0;
  if (charge === 'full') return price;
  return Math.ceil((price * percent) / 100);
}

/** Starts a connector with the given variables (the billing mode among them) on the flows' registry. */
export type StartMoneyConnector = (env: Record<string, string>, options?: ConnectorOptions) => Promise<ConnectorUnderTest>;

interface Account {
  balance: number;
  held: number;
}

/** A credit entry as `GET /v1/link/credits` lists it (the members the proofs read). */
export interface Entry {
  kind: string;
  credits: number;
  job_id?: string;
  balance_after: number;
  held_after: number;
}

/** An account with every one of its entries. */
export type Statement = Account & { entries: Entry[] };

/** A subject's account and every entry (newest first) through any API, paging through `next_cursor`. */
export async function statementOf(client: JobClient, linkSecret: string, subject: string): Promise<Statement> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  let account: Account = { balance: 0, held: 0 };
  do {
    const query: string = `subject=${encodeURIComponent(subject)}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await client.call('GET', `/v1/link/credits?${query}`, { headers: { 'x-link-secret': linkSecret } });
    expect(res.status, res.text).to.equal(200);
    account = { balance: res.body.balance, held: res.body.held };
    entries.push(...(res.body.entries as Entry[]));
    cursor = res.body.next_cursor;
  } while (cursor);
  return { ...account, entries };
}

/** The calls the flows make on one connector. */
export function moneyClient(c: ConnectorUnderTest) {
  const linkHeaders = { 'x-link-secret': c.config.linkSecret };
  return {
    grant: async (subject: string, credits: number) => {
      const res = await c.call('POST', '/v1/link/credits', {
        body: { subject, credits, grant_id: `g_${randomBytes(8).toString('hex')}` },
        headers: linkHeaders,
      });
      expect(res.status, res.text).to.equal(201);
    },
    /** The account and every entry (newest first), paging through. */
    statement: (subject: string) => statementOf(c, c.config.linkSecret, subject),
    me: async (token: string) => {
      const res = await c.call('GET', '/v1/me', { token });
      expect(res.status, res.text).to.equal(200);
      return res.body as { credits?: Account; usage: { credits_spent: number; jobs_charged: number } };
    },
    submit: (token: string, operation: Operation, input: Record<string, unknown>, key = newKey()): Promise<CallResult> =>
      c.call('POST', operation.path, { token, body: { input }, headers: { 'idempotency-key': key } }),
    job: async (token: string, id: string) => {
      const res = await c.call('GET', `/v1/jobs/${id}`, { token });
      expect(res.status, res.text).to.equal(200);
      return res.body;
    },
    cancel: (token: string, id: string) => c.call('DELETE', `/v1/jobs/${id}`, { token }),
    list: async (token: string) => {
      const res = await c.call('GET', '/v1/jobs', { token });
      expect(res.status, res.text).to.equal(200);
      return res.body.items as unknown[];
    },
    /** Waits until the job is final and returns it. */
    final: async (token: string, id: string) =>
      waitFor(
        async () => {
          const res = await c.call('GET', `/v1/jobs/${id}`, { token });
          return ['succeeded', 'failed', 'canceled'].includes(res.body.status) ? res.body : undefined;
        },
        { timeoutMs: 20_000, what: `job ${id} to end` },
      ),
    /** Waits until the job reports `percent`. */
    reported: (token: string, id: string, percent: number) =>
      waitFor(
        async () => {
          const res = await c.call('GET', `/v1/jobs/${id}`, { token });
          return res.body.status === 'running' && res.body.progress?.percent === percent;
        },
        { timeoutMs: 20_000, what: `job ${id} to report ${percent} %` },
      ),
    /** A counter's value for the given labels (0 when absent). */
    counter: async (name: string, labels: Record<string, string>): Promise<number> => {
      const page = parseExposition(await (await fetch(c.metricsUrl)).text());
      return page.samples
        .filter((sample) => sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v))
        .reduce((sum, sample) => sum + sample.value, 0);
    },
  };
}

/** The entries add up to the account: balance = grants + adjustments − holds + releases; held = holds − captures − releases. */
export function expectEntriesAddUp(statement: Account & { entries: Entry[] }): void {
  const sum = (kind: string) => statement.entries.filter((entry) => entry.kind === kind).reduce((total, entry) => total + entry.credits, 0);
  expect(sum('grant') + sum('adjustment') - sum('hold') + sum('release'), 'balance from the entries').to.equal(statement.balance);
  expect(sum('hold') - sum('capture') - sum('release'), 'held from the entries').to.equal(statement.held);
  expectRunningAccount(statement.entries);
}

/** What each kind of entry does to `[balance, held]`. */
const MOVES: Readonly<Record<string, (credits: number) => [number, number]>> = {
  grant: (credits) => [credits, 0],
  adjustment: (credits) => [credits, 0],
  hold: (credits) => [-credits, credits],
  capture: (credits) => [0, -credits],
  release: (credits) => [credits, -credits],
  expire: (credits) => [-credits, 0],
  void: (credits) => [-credits, 0],
};

/** Every entry (newest first, the whole account) carries the account just after it: the running sums of the entries up to it. */
export function expectRunningAccount(entries: readonly Entry[]): void {
  let [balance, held] = [0, 0];
  for (const entry of [...entries].reverse()) {
    const [moved, kept] = MOVES[entry.kind](entry.credits);
    balance += moved;
    held += kept;
    expect({ balance: entry.balance_after, held: entry.held_after }, `the account after ${entry.kind} ${entry.credits}`).to.deep.equal({
      balance,
      held,
    });
  }
}

/** A subject linked on `c` with `credits` granted (prepaid), and its token. */
async function fundedSubject(c: ConnectorUnderTest, credits: number, prepaid: boolean): Promise<{ subject: string; token: string }> {
  const subject = newSubject();
  const token = await c.link(subject);
  if (prepaid && credits !== 0) await moneyClient(c).grant(subject, credits);
  return { subject, token };
}

/**
 * Holds, captures and releases over HTTP in both billing modes, on one connector per mode: the 402 of a
 * balance short of a price (prepaid), replays never refused, each ending's settlement, and what a cancel
 * while running keeps per the operation's `cancelCharge`.
 */
export function moneyFlows(label: string, start: StartMoneyConnector): void {
  for (const mode of ['prepaid', 'metered'] as const) {
    const prepaid = mode === 'prepaid';
    describe(`paid jobs' money, BILLING_MODE=${mode} [${label}]`, function () {
      this.timeout(90_000);
      let c: ConnectorUnderTest;
      let api: ReturnType<typeof moneyClient>;
      const { operation: placeholder, price, input } = placeholderOperation();

      before(async () => {
        // One job at a time: a job that runs until canceled keeps the next one queued.
        c = await start({ BILLING_MODE: mode, WORKER_CONCURRENCY: '1' }, { operations: MONEY_REGISTRY });
        api = moneyClient(c);
      });
      after(async () => c?.close());

      /** The account as both GET /v1/link/credits and /v1/me show it, checked equal, and its entries add up. */
      const account = async (subject: string, token: string): Promise<Account> => {
        const statement = await api.statement(subject);
        expectEntriesAddUp(statement);
        const me = await api.me(token);
        if (prepaid) expect(me.credits).to.deep.equal({ balance: statement.balance, held: statement.held });
        else expect(me.credits).to.equal(undefined);
        return { balance: statement.balance, held: statement.held };
      };

      if (prepaid) {
        it('a balance short of the price answers 402 insufficient-credits with the balance, the price and the top-up link; nothing is recorded', async () => {
          const { subject, token } = await fundedSubject(c, price - 1, true);
          const key = newKey();
          const refused = await api.submit(token, placeholder, input, key);
          expect(refused.status, refused.text).to.equal(402);
          expect(refused.headers.get('content-type')).to.match(/^application\/problem\+json/);
          expect(refused.body).to.deep.include({
            type: 'urn:connector:problem:insufficient-credits',
            balance: price - 1,
            price,
            top_up_url: c.config.billing.topUpUrl,
          });
          expect(refused.body.top_up_url).to.equal(c.config.dashboardUrl);
          expect(await api.list(token)).to.deep.equal([]);
          expect((await api.me(token)).usage).to.deep.include({ jobs_charged: 0, credits_spent: 0 });
          expect(await account(subject, token)).to.deep.equal({ balance: price - 1, held: 0 });
          // The same key once funded is a new job, not a replay: the refusal recorded nothing under it.
          await api.grant(subject, 1);
          const accepted = await api.submit(token, placeholder, input, key);
          expect(accepted.status, accepted.text).to.equal(202);
          expect(accepted.headers.get('idempotent-replayed')).to.equal(null);
          await api.final(token, accepted.body.id);
        });

        it('a replay of an accepted key is answered, never refused for funds, and holds nothing more', async () => {
          const { subject, token } = await fundedSubject(c, price, true);
          const key = newKey();
          const first = await api.submit(token, placeholder, input, key);
          expect(first.status, first.text).to.equal(202);
          for (let i = 0; i < 3; i++) {
            const again = await api.submit(token, placeholder, input, key);
            expect(again.status, again.text).to.equal(202);
            expect(again.headers.get('idempotent-replayed')).to.equal('true');
            expect(again.body.id).to.equal(first.body.id);
          }
          const ended = await api.final(token, first.body.id);
          expect(ended.status).to.equal('succeeded');
          const replayed = await api.submit(token, placeholder, input, key);
          expect(replayed.status, replayed.text).to.equal(202);
          expect(await account(subject, token)).to.deep.equal({ balance: 0, held: 0 });
          const holds = (await api.statement(subject)).entries.filter((entry) => entry.kind === 'hold');
          expect(holds).to.have.length(1);
        });
      } else {
        it('a subject without any credits is served: metered billing holds nothing and never answers 402 for funds', async () => {
          const { subject, token } = await fundedSubject(c, 0, false);
          const res = await api.submit(token, placeholder, input);
          expect(res.status, res.text).to.equal(202);
          expect((await api.final(token, res.body.id)).status).to.equal('succeeded');
          expect(await account(subject, token)).to.deep.equal({ balance: 0, held: 0 });
          expect((await api.me(token)).usage).to.deep.include({ jobs_charged: 1, credits_spent: price });
        });
      }

      it('a success keeps the price: the hold is captured, refunded_credits is 0', async () => {
        const { subject, token } = await fundedSubject(c, 5 * price, prepaid);
        const captured = await api.counter('connector_credits_captured_total', { operation: placeholder.operationId });
        const res = await api.submit(token, placeholder, input);
        expect(res.status, res.text).to.equal(202);
        const ended = await api.final(token, res.body.id);
        expect(ended).to.deep.include({ status: 'succeeded', refunded_credits: 0 });
        expect((await api.me(token)).usage.credits_spent).to.equal(price);
        if (!prepaid) return;
        expect(await account(subject, token)).to.deep.equal({ balance: 4 * price, held: 0 });
        const kinds = (await api.statement(subject)).entries.filter((entry) => entry.job_id === res.body.id).map((entry) => entry.kind);
        expect(kinds).to.deep.equal(['capture', 'hold']);
        expect(await api.counter('connector_credits_captured_total', { operation: placeholder.operationId })).to.equal(captured + price);
      });

      it('a failure refunded by its operation gives the whole price back (a release), refunded_credits is the price', async () => {
        const { subject, token } = await fundedSubject(c, price, prepaid);
        const labels = { operation: placeholder.operationId, reason: 'failed' };
        const released = await api.counter('connector_credits_released_total', labels);
        const res = await api.submit(token, placeholder, { ...input, prompt: `${FAIL_PREFIX} now` });
        expect(res.status, res.text).to.equal(202);
        expect(await api.final(token, res.body.id)).to.deep.include({ status: 'failed', refunded_credits: price });
        expect((await api.me(token)).usage.credits_spent).to.equal(0);
        if (!prepaid) return;
        expect(await account(subject, token)).to.deep.equal({ balance: price, held: 0 });
        expect(await api.counter('connector_credits_released_total', labels)).to.equal(released + price);
      });

      for (const charge of CANCEL_CHARGES) {
        const holder = HOLDERS.get(charge)!;
        const kept = expectedKept(HOLDER_PRICE, charge, REPORTED_PERCENT);
        it(`cancelCharge ${charge}: a cancel at ${REPORTED_PERCENT} % keeps ${kept} of ${HOLDER_PRICE}, gives back the rest; a job canceled before it starts gives back all`, async () => {
          const { subject, token } = await fundedSubject(c, HOLDER_PRICE + price, prepaid);
          const released = await api.counter('connector_credits_released_total', {
            operation: placeholder.operationId,
            reason: 'canceled',
          });
          const running = await api.submit(token, holder, { note: 'wait' });
          expect(running.status, running.text).to.equal(202);
          await api.reported(token, running.body.id, REPORTED_PERCENT);
          // The one worker slot is taken: this job stays queued until canceled.
          const queued = await api.submit(token, placeholder, input);
          expect(queued.status, queued.text).to.equal(202);
          if (prepaid) expect(await account(subject, token)).to.deep.equal({ balance: 0, held: HOLDER_PRICE + price });
          // Prepaid: what is only held is not spent (shown apart as credits.held); metered: charged at accept.
          expect((await api.me(token)).usage.credits_spent, 'while held').to.equal(prepaid ? 0 : HOLDER_PRICE + price);
          const canceledQueued = await api.cancel(token, queued.body.id);
          expect(canceledQueued.status, canceledQueued.text).to.equal(200);
          expect(await api.final(token, queued.body.id)).to.deep.include({ status: 'canceled', refunded_credits: price });
          const stop = await api.cancel(token, running.body.id);
          expect(stop.status, stop.text).to.equal(202);
          const ended = await api.final(token, running.body.id);
          expect(ended).to.deep.include({ status: 'canceled', refunded_credits: HOLDER_PRICE - kept });
          expect(ended.progress.percent).to.equal(REPORTED_PERCENT);
          expect((await api.me(token)).usage.credits_spent, JSON.stringify(await api.me(token))).to.equal(kept);
          if (!prepaid) return;
          expect(await account(subject, token)).to.deep.equal({ balance: HOLDER_PRICE + price - kept, held: 0 });
          const byJob = (id: string) => api.statement(subject).then((s) => s.entries.filter((entry) => entry.job_id === id));
          const queuedKinds = (await byJob(queued.body.id)).map((entry) => [entry.kind, entry.credits]);
          expect(queuedKinds).to.deep.equal([
            ['release', price],
            ['hold', price],
          ]);
          const runningKinds = (await byJob(running.body.id)).map((entry) => [entry.kind, entry.credits]).reverse();
          const expected: Array<[string, number]> = [['hold', HOLDER_PRICE]];
          if (kept > 0) expected.push(['capture', kept]);
          if (HOLDER_PRICE - kept > 0) expected.push(['release', HOLDER_PRICE - kept]);
          expect(runningKinds).to.deep.equal(expected);
          expect(
            await api.counter('connector_credits_released_total', { operation: placeholder.operationId, reason: 'canceled' }),
          ).to.equal(released + price);
        });
      }
    });
  }
}
