import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { moneyClient, placeholderOperation } from '../support/money-flows';
import { connectStoreClient, type StoreClient } from '../support/redis-fixture';
import { waitFor } from '../testkit/wait-for';

describe('the API sweeps orphaned holds (HOLD_ORPHAN_SECONDS=1, one Redis node)', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;
  let store: StoreClient;
  let ledger: RedisLedgerStore;

  before(async () => {
    connector = await startConnector('redis', { BILLING_MODE: 'prepaid', HOLD_ORPHAN_SECONDS: '1' });
    store = await connectStoreClient(connectionUrl(connector.config.redis)!, connector.config.redisKeyPrefix);
    ledger = new RedisLedgerStore(store.client, store.keys, store.guard);
  });
  after(async () => {
    await store?.close();
    await connector?.close();
  });

  it('a hold claimed without an enqueue goes back to the balance as an orphaned release, counted once', async () => {
    const subject = newSubject();
    const api = moneyClient(connector);
    await api.grant(subject, 20);
    const before = await api.counter('connector_credits_orphaned_total', {});
    // A claim with no enqueue after it: what a submit that died (or answered 503) in between leaves.
    const jobId = `job_${randomBytes(12).toString('base64url')}`;
    const claim = { subject, key: 'k', fingerprint: 'fp', jobId, operation: 'createJob', cost: 7, ttlSeconds: 600, hold: {} };
    expect((await ledger.claim(claim)).outcome).to.equal('created');
    expect((await api.statement(subject)).held).to.equal(7);
    const statement = await waitFor(
      async () => {
        const now = await api.statement(subject);
        return now.held === 0 ? now : undefined;
      },
      { timeoutMs: 20_000, what: 'the sweep to release the hold' },
    );
    expect(statement.balance).to.equal(20);
    expect(statement.entries[0]).to.include({ kind: 'release', credits: 7, job_id: jobId, reason: 'orphaned' });
    expect(await api.counter('connector_credits_orphaned_total', {})).to.equal(before + 7);
    expect(await ledger.isClaimed(subject, jobId), 'the key is free for a fresh submit').to.equal(false);
    expect(await api.counter('connector_credit_oldest_hold_seconds', {}), 'no hold left waiting').to.equal(0);
  });

  it('a job that was enqueued keeps its hold until it ends, whatever the sweep, and a 402 is counted by operation', async () => {
    const subject = newSubject();
    const token = await connector.link(subject);
    const api = moneyClient(connector);
    const { operation, input, price } = placeholderOperation();
    await api.grant(subject, price);
    const accepted = await api.submit(token, operation, input);
    expect(accepted.status, accepted.text).to.equal(202);
    await api.final(token, accepted.body.id);
    const statement = await api.statement(subject);
    expect(statement.entries.map((entry) => entry.kind)).to.deep.equal(['capture', 'hold', 'grant']);
    const refusedBefore = await api.counter('connector_spends_refused_total', { operation: operation.operationId });
    expect((await api.submit(token, operation, input)).status).to.equal(402);
    expect(await api.counter('connector_spends_refused_total', { operation: operation.operationId })).to.equal(refusedBefore + 1);
  });
});
