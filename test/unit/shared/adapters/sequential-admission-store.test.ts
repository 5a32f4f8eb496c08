import { expect } from 'chai';
import { MemoryConnectionStore } from '../../../../shared/adapters/memory/memory-connection-store';
import { MemoryCreditStore } from '../../../../shared/adapters/memory/memory-credit-store';
import { MemoryLedgerStore } from '../../../../shared/adapters/memory/memory-ledger-store';
import { MemoryRateLimitStore } from '../../../../shared/adapters/memory/memory-rate-limit-store';
import { SequentialAdmissionStore } from '../../../../shared/adapters/sequential-admission-store';
import type { BearerAdmissionRequest } from '../../../../shared/domain/admission/admission-store';

const NOW_S = Math.floor(Date.now() / 1000);
const REQUEST: BearerAdmissionRequest = { connectionId: 'conn_1', subject: 'p', rateKey: 'rl:p', windowSeconds: 60 };

/** The memory stores with one live connection of `p`, and admissions over them on a clock the test sets. */
async function stores(withCredits = false) {
  const connections = new MemoryConnectionStore();
  await connections.create({ id: 'conn_1', subject: 'p', issuedAt: NOW_S, expiresAt: NOW_S + 3600, revoked: false });
  const rateLimits = new MemoryRateLimitStore();
  const credits = new MemoryCreditStore();
  const clock = { ms: NOW_S * 1000 };
  const admissions = new SequentialAdmissionStore({
    connections,
    rateLimits,
    ledger: new MemoryLedgerStore(),
    now: () => clock.ms,
    ...(withCredits ? { credits } : {}),
  });
  return { connections, rateLimits, credits, clock, admissions };
}

describe('admission from the separate stores (SequentialAdmissionStore)', () => {
  it("admits a live connection's request and hits its subject's window once per request", async () => {
    const { admissions } = await stores();
    const first = await admissions.admitBearer(REQUEST);
    const second = await admissions.admitBearer(REQUEST);
    expect(first).to.deep.include({ outcome: 'admitted' });
    expect(first.outcome === 'admitted' && first.window.count).to.equal(1);
    expect(second.outcome === 'admitted' && second.window.count).to.equal(2);
    expect(first, 'no usage unless asked').not.to.have.property('usage');
  });

  it("refuses a revoked connection, or one of another subject, without hitting the subject's window", async () => {
    const { admissions, connections, rateLimits } = await stores();
    expect(await admissions.admitBearer({ ...REQUEST, subject: 'q' })).to.deep.equal({ outcome: 'revoked' });
    await connections.revoke('conn_1');
    expect(await admissions.admitBearer(REQUEST)).to.deep.equal({ outcome: 'revoked' });
    expect(await admissions.admitBearer({ ...REQUEST, connectionId: 'conn_none' })).to.deep.equal({ outcome: 'revoked' });
    expect((await rateLimits.hit(REQUEST.rateKey, REQUEST.windowSeconds)).count, 'the first hit of the window').to.equal(1);
  });

  it("records a use at the store's clock, again only once the recorded one is a minute old", async () => {
    const { admissions, connections, clock } = await stores();
    await admissions.admitBearer(REQUEST);
    expect((await connections.get('conn_1'))?.lastUsedAt).to.equal(NOW_S);
    clock.ms += 59_000;
    await admissions.admitBearer(REQUEST);
    expect((await connections.get('conn_1'))?.lastUsedAt, 'within the minute').to.equal(NOW_S);
    clock.ms += 1000;
    await admissions.admitBearer(REQUEST);
    expect((await connections.get('conn_1'))?.lastUsedAt, 'a minute on').to.equal(NOW_S + 60);
  });

  it("with a usage day, carries the subject's usage and the day's spend, and the credit account only when given the credit store", async () => {
    const day = '2026-11-29';
    const plain = await (await stores()).admissions.admitBearer({ ...REQUEST, usageDay: day });
    expect(plain.outcome === 'admitted' && plain.usage).to.deep.equal({
      usage: { jobs_charged: 0, credits_spent: 0, credits_refunded: 0 },
      day,
      spentOnDay: 0,
    });
    const withCredits = await stores(true);
    await withCredits.credits.grant({ subject: 'p', grantId: 'cs_1', credits: 30, fingerprint: 'f' });
    const admitted = await withCredits.admissions.admitBearer({ ...REQUEST, usageDay: day });
    expect(admitted.outcome === 'admitted' && admitted.usage?.credits).to.deep.include({ balance: 30, held: 0 });
  });
});
