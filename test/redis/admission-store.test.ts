import { expect } from 'chai';
import { MemoryConnectionStore } from '../../shared/adapters/memory/memory-connection-store';
import { MemoryCreditStore } from '../../shared/adapters/memory/memory-credit-store';
import { MemoryLedgerStore } from '../../shared/adapters/memory/memory-ledger-store';
import { MemoryRateLimitStore } from '../../shared/adapters/memory/memory-rate-limit-store';
import { RedisAdmissionStore } from '../../shared/adapters/redis/redis-admission-store';
import { RedisConnectionStore } from '../../shared/adapters/redis/redis-connection-store';
import { RedisCreditStore } from '../../shared/adapters/redis/redis-credit-store';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import { RedisRateLimitStore } from '../../shared/adapters/redis/redis-rate-limit-store';
import { SequentialAdmissionStore } from '../../shared/adapters/sequential-admission-store';
import type { AdmissionStore, BearerAdmissionRequest } from '../../shared/domain/admission/admission-store';
import type { RateLimitStore } from '../../shared/domain/admission/rate-limit-store';
import type { Connection, ConnectionStore } from '../../shared/domain/connections/connection-store';
import type { CreditStore } from '../../shared/domain/credits/credit-store';
import type { LedgerStore } from '../../shared/domain/ledger/ledger-store';
import { grantOf } from '../support/credit-store-contract';
import { commandCalls, type StoreClient, twoClientStores } from '../support/redis-fixture';

interface Stores {
  admissions: AdmissionStore;
  connections: ConnectionStore;
  rateLimits: RateLimitStore;
  ledger: LedgerStore;
  credits: CreditStore;
}

const now = () => Math.floor(Date.now() / 1000);

function connection(id: string, subject: string, extra: Partial<Connection> = {}): Connection {
  return { id, subject, issuedAt: now(), expiresAt: now() + 3600, revoked: false, ...extra };
}

function request(id: string, subject: string): BearerAdmissionRequest {
  return { connectionId: id, subject, rateKey: `sub:${subject}`, windowSeconds: 60 };
}

/** The same checks against one backend's stores: every case uses its own connections, subjects and addresses. */
function behavesLikeTheSeparateStores(name: string, stores: () => Stores): void {
  describe(`bearer admission, ${name}`, () => {
    it('a live connection is admitted and hits the subject window once per call', async () => {
      const { admissions, connections } = stores();
      await connections.create(connection('conn_live', 'alice@example.com', { client: { id: 'cl_1', name: 'Client One' } }));
      const first = await admissions.admitBearer(request('conn_live', 'alice@example.com'));
      const second = await admissions.admitBearer(request('conn_live', 'alice@example.com'));
      expect(first).to.deep.include({ outcome: 'admitted', client: { id: 'cl_1', name: 'Client One' } });
      expect(second.outcome === 'admitted' && second.window.count).to.equal(2);
      expect(second.outcome === 'admitted' && second.window.resetInSeconds).to.be.within(1, 60);
    });

    it('a connection without an OAuth client is admitted with no client', async () => {
      const { admissions, connections } = stores();
      await connections.create(connection('conn_plain', 'plain@example.com'));
      const admission = await admissions.admitBearer(request('conn_plain', 'plain@example.com'));
      expect(admission.outcome).to.equal('admitted');
      expect(admission).to.not.have.property('client');
    });

    it("a revoked, unknown or other subject's connection is refused and the subject window is not hit", async () => {
      const { admissions, connections, rateLimits } = stores();
      await connections.create(connection('conn_revoked', 'bob@example.com'));
      await connections.revoke('conn_revoked');
      await connections.create(connection('conn_carol', 'carol@example.com'));
      expect(await admissions.admitBearer(request('conn_revoked', 'bob@example.com'))).to.deep.equal({ outcome: 'revoked' });
      expect(await admissions.admitBearer(request('conn_missing', 'bob@example.com'))).to.deep.equal({ outcome: 'revoked' });
      expect(await admissions.admitBearer(request('conn_carol', 'bob@example.com'))).to.deep.equal({ outcome: 'revoked' });
      expect((await rateLimits.hit('sub:bob@example.com', 60)).count, "the next hit is the window's first").to.equal(1);
    });

    it('asked for a day, an admitted request carries the subject’s charges, that day’s spend and its credit account; not asked, none', async () => {
      const { admissions, connections, ledger } = stores();
      await connections.create(connection('conn_erin', 'erin@example.com'));
      const day = '2026-11-22';
      for (const [key, cost] of [
        ['k1', 2],
        ['k2', 3],
      ] as const) {
        const claimed = (
          await ledger.claim({
            subject: 'erin@example.com',
            key,
            fingerprint: key,
            jobId: `job_${key}`,
            operation: 'createJob',
            cost,
            ttlSeconds: 60,
            day,
          })
        ).outcome;
        expect(claimed).to.equal('created');
      }
      await stores().credits.grant(grantOf('erin@example.com', 12));
      const asked = await admissions.admitBearer({ ...request('conn_erin', 'erin@example.com'), usageDay: day });
      expect(asked.outcome === 'admitted' && asked.usage).to.deep.equal({
        usage: { jobs_charged: 2, credits_spent: 5, credits_refunded: 0 },
        day,
        spentOnDay: 5,
        credits: { balance: 12, held: 0 },
      });
      const otherDay = await admissions.admitBearer({ ...request('conn_erin', 'erin@example.com'), usageDay: '2026-11-23' });
      expect(otherDay.outcome === 'admitted' && otherDay.usage).to.deep.equal({
        usage: { jobs_charged: 2, credits_spent: 5, credits_refunded: 0 },
        day: '2026-11-23',
        spentOnDay: 0,
        credits: { balance: 12, held: 0 },
      });
      expect(await admissions.admitBearer(request('conn_erin', 'erin@example.com'))).to.not.have.property('usage');
    });

    it('asked for a day, a subject never charged reads zero usage and an empty account; a refused request carries none', async () => {
      const { admissions, connections } = stores();
      await connections.create(connection('conn_fay', 'fay@example.com'));
      const fresh = await admissions.admitBearer({ ...request('conn_fay', 'fay@example.com'), usageDay: '2026-11-22' });
      expect(fresh.outcome === 'admitted' && fresh.usage).to.deep.equal({
        usage: { jobs_charged: 0, credits_spent: 0, credits_refunded: 0 },
        day: '2026-11-22',
        spentOnDay: 0,
        credits: { balance: 0, held: 0 },
      });
      const refused = await admissions.admitBearer({ ...request('conn_gone', 'fay@example.com'), usageDay: '2026-11-22' });
      expect(refused).to.deep.equal({ outcome: 'revoked' });
    });
  });
}

describe('bearer admission gives the same outcomes on both backends', () => {
  const t = twoClientStores('adm:', (client) => ({
    admissions: new RedisAdmissionStore(client.client, client.keys, client.guard),
    connections: new RedisConnectionStore(client.client, client.keys, client.guard),
    rateLimits: new RedisRateLimitStore(client.client, client.keys, client.guard),
    ledger: new RedisLedgerStore(client.client, client.keys, client.guard),
    credits: new RedisCreditStore(client.client, client.keys, client.guard),
  }));
  behavesLikeTheSeparateStores('one Redis script', () => t.storeA);

  let memory: Stores;
  beforeEach(() => {
    const connections = new MemoryConnectionStore();
    const rateLimits = new MemoryRateLimitStore();
    const ledger = new MemoryLedgerStore();
    const credits = new MemoryCreditStore();
    memory = {
      connections,
      rateLimits,
      ledger,
      credits,
      admissions: new SequentialAdmissionStore({ connections, rateLimits, ledger, credits }),
    };
  });
  behavesLikeTheSeparateStores('the memory stores one after another', () => memory);
});

/** Stores whose admissions date uses by `clock`, and what shows how often a use was written. */
interface ClockedStores {
  admissions: AdmissionStore;
  connections: ConnectionStore;
  /** A second replica's admissions (Redis only), on its own client. */
  otherReplica?: AdmissionStore;
  /** HSET calls the server has run so far (Redis only; script-internal ones included). */
  writes?: () => Promise<number>;
}

/** `replicas`: the stores offer a second replica and a write count (Redis), for the race between replicas. */
function recordsUsesOncePerMinute(name: string, clock: { ms: number }, stores: () => ClockedStores, replicas = false): void {
  describe(`the last use of a connection, ${name}`, () => {
    const at = (seconds: number) => Math.floor(clock.ms / 1000) + seconds;

    it('the first admission records it; admissions within the next 59 s leave it; one 60 s after it moves it', async () => {
      const { admissions, connections } = stores();
      const start = clock.ms;
      await connections.create(connection('conn_use', 'use@example.com'));
      expect((await connections.get('conn_use'))?.lastUsedAt).to.equal(undefined);
      await admissions.admitBearer(request('conn_use', 'use@example.com'));
      const first = Math.floor(start / 1000);
      expect((await connections.get('conn_use'))?.lastUsedAt).to.equal(first);
      for (const later of [1, 30, 59]) {
        clock.ms = start + later * 1000;
        await admissions.admitBearer(request('conn_use', 'use@example.com'));
        expect((await connections.get('conn_use'))?.lastUsedAt, `${later} s later`).to.equal(first);
      }
      clock.ms = start + 60_000;
      await admissions.admitBearer(request('conn_use', 'use@example.com'));
      expect((await connections.get('conn_use'))?.lastUsedAt).to.equal(first + 60);
      clock.ms = start;
    });

    it("a refused request records nothing: a revoked connection, another subject's token, an unknown connection", async () => {
      const { admissions, connections } = stores();
      await connections.create(connection('conn_unused', 'unused@example.com'));
      await connections.create(connection('conn_gone', 'gone@example.com'));
      await connections.revoke('conn_gone');
      expect((await admissions.admitBearer(request('conn_unused', 'someone@example.com'))).outcome).to.equal('revoked');
      expect((await admissions.admitBearer(request('conn_gone', 'gone@example.com'))).outcome).to.equal('revoked');
      expect((await admissions.admitBearer(request('conn_nowhere', 'gone@example.com'))).outcome).to.equal('revoked');
      expect((await connections.get('conn_unused'))?.lastUsedAt).to.equal(undefined);
      expect((await connections.get('conn_gone'))?.lastUsedAt).to.equal(undefined);
      await connections.touch('conn_nowhere', at(0));
      expect(await connections.get('conn_nowhere'), 'a touch makes no connection').to.equal(undefined);
    });

    if (!replicas) return;
    it('200 admissions through two replicas on a value a minute old write it once between them', async () => {
      const { admissions, connections, otherReplica, writes } = stores();
      await connections.create(connection('conn_busy', 'busy@example.com'));
      await connections.touch('conn_busy', at(-61));
      expect((await connections.get('conn_busy'))?.lastUsedAt).to.equal(at(-61));
      const before = await writes!();
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? admissions : otherReplica!).admitBearer(request('conn_busy', 'busy@example.com'))),
      );
      expect(outcomes.every((o) => o.outcome === 'admitted')).to.equal(true);
      expect((await writes!()) - before).to.equal(1);
      expect((await connections.get('conn_busy'))?.lastUsedAt).to.equal(at(0));
    });
  });
}

describe("bearer admission records a connection's use at most once a minute, on every backend", () => {
  const clock = { ms: Date.parse('2026-11-24T10:00:00.000Z') };
  const now = () => clock.ms;
  const hsetCalls = (client: StoreClient) => async () => (await commandCalls(client.client)).hset ?? 0;

  const script = twoClientStores('use1:', (client) => ({
    admissions: new RedisAdmissionStore(client.client, client.keys, client.guard, now),
    connections: new RedisConnectionStore(client.client, client.keys, client.guard),
  }));
  recordsUsesOncePerMinute(
    'one Redis script (one node)',
    clock,
    () => ({ ...script.storeA, otherReplica: script.storeB.admissions, writes: hsetCalls(script.a) }),
    true,
  );

  const sequential = (client: StoreClient) => {
    const connections = new RedisConnectionStore(client.client, client.keys, client.guard);
    const rateLimits = new RedisRateLimitStore(client.client, client.keys, client.guard);
    const ledger = new RedisLedgerStore(client.client, client.keys, client.guard);
    return { connections, admissions: new SequentialAdmissionStore({ connections, rateLimits, ledger, now }) };
  };
  const cluster = twoClientStores('use2:', sequential);
  recordsUsesOncePerMinute(
    'single-slot calls (the Redis Cluster path)',
    clock,
    () => ({ ...cluster.storeA, otherReplica: cluster.storeB.admissions, writes: hsetCalls(cluster.a) }),
    true,
  );

  let memory: ClockedStores;
  beforeEach(() => {
    const connections = new MemoryConnectionStore();
    memory = {
      connections,
      admissions: new SequentialAdmissionStore({
        connections,
        rateLimits: new MemoryRateLimitStore(),
        ledger: new MemoryLedgerStore(),
        now,
      }),
    };
  });
  recordsUsesOncePerMinute('the memory stores', clock, () => memory);
});
