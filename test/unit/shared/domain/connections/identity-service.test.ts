import { expect } from 'chai';
import { IdentityService } from '../../../../../shared/domain/connections/identity-service';
import type { Principal } from '../../../../../shared/domain/connections/principal';
import type { CreditAccount } from '../../../../../shared/domain/credits/credit-store';
import { DailyBudget } from '../../../../../shared/domain/ledger/daily-budget';
import type { LedgerStore } from '../../../../../shared/domain/ledger/ledger-store';

const NOON = Date.parse('2026-03-02T12:00:00.000Z');
const USAGE = { jobs_charged: 2, credits_spent: 12, credits_refunded: 0 };
const PRINCIPAL: Principal = { subject: 'user-1', connectionId: 'conn-1', issuedAt: 1_700_000_000, expiresAt: 1_700_003_600 };
const ACCOUNT = { balance: 40 } as unknown as CreditAccount;

/** A ledger with fixed figures that counts its reads. */
function ledger() {
  const reads: string[] = [];
  const store = {
    usage: async () => {
      reads.push('usage');
      return USAGE;
    },
    spentOn: async (_subject: string, day: string) => {
      reads.push(`spentOn ${day}`);
      return 7;
    },
  } as unknown as LedgerStore;
  return { store, reads };
}

describe('IdentityService (what GET /v1/me shows)', () => {
  it('no cap, link connection: subject, connection, ISO times, revoke URL, usage; no budget, no client, no credits', async () => {
    const { store, reads } = ledger();
    const identity = await new IdentityService(store, 'https://api.example.com/v1/link/revoke').describe(PRINCIPAL);
    expect(identity).to.deep.equal({
      subject: 'user-1',
      connection_id: 'conn-1',
      issued_at: '2023-11-14T22:13:20.000Z',
      expires_at: '2023-11-14T23:13:20.000Z',
      revoke_url: 'https://api.example.com/v1/link/revoke',
      usage: USAGE,
      daily_budget: null,
      client: null,
    });
    expect(reads).to.deep.equal(['usage']);
  });

  it("a daily cap: today's spend read from the ledger and shown against the limit", async () => {
    const { store, reads } = ledger();
    const identity = await new IdentityService(store, 'u', new DailyBudget(10, () => NOON)).describe(PRINCIPAL);
    expect(identity.daily_budget).to.deep.include({ limit: 10, spent: 7, remaining: 3 });
    expect(reads).to.include('spentOn 2026-03-02');
  });

  it('charges already read for today: used as they are, the ledger not read again', async () => {
    const { store, reads } = ledger();
    const known = { usage: { ...USAGE, jobs_charged: 9 }, day: '2026-03-02', spentOnDay: 4 };
    const identity = await new IdentityService(store, 'u', new DailyBudget(10, () => NOON)).describe(PRINCIPAL, known);
    expect(identity.usage.jobs_charged).to.equal(9);
    expect(identity.daily_budget?.spent).to.equal(4);
    expect(reads).to.deep.equal([]);
  });

  it("charges read on another day (a request across midnight): today's spend read afresh", async () => {
    const { store, reads } = ledger();
    const known = { usage: USAGE, day: '2026-03-01', spentOnDay: 4 };
    const identity = await new IdentityService(store, 'u', new DailyBudget(10, () => NOON)).describe(PRINCIPAL, known);
    expect(identity.daily_budget?.spent).to.equal(7);
    expect(reads).to.deep.equal(['spentOn 2026-03-02']);
  });

  it('an OAuth grant in prepaid billing: its client and the credit account are shown', async () => {
    const credits = { prepaid: true, account: async () => ACCOUNT };
    const principal = { ...PRINCIPAL, client: { id: 'client-1', name: 'Assistant' } };
    const identity = await new IdentityService(ledger().store, 'u', undefined, credits).describe(principal);
    expect(identity.client).to.deep.equal({ client_id: 'client-1', client_name: 'Assistant' });
    expect(identity.credits).to.equal(ACCOUNT);
  });

  it('metered billing: no credits member even with an account reader', async () => {
    const credits = { prepaid: false, account: async () => ACCOUNT };
    const identity = await new IdentityService(ledger().store, 'u', undefined, credits).describe(PRINCIPAL);
    expect(identity).to.not.have.property('credits');
  });
});
