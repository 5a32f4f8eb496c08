import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { CreditEntry } from '../../shared/domain/credits/credit-store';
import { accountOfEntries } from '../support/credit-store-contract';
import { newSubject } from '../support/harness';
import { type ApiUnderTest, redisEnv, startApiProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

describe('prepaid grants through two built API processes sharing one private Redis', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let env: Record<string, string>;
  let a: ApiUnderTest;
  let b: ApiUnderTest;

  before(async () => {
    redis = await startRedis();
    env = redisEnv(redis.url, 'grants:', { BILLING_MODE: 'prepaid' });
    [a, b] = await Promise.all([startApiProcess(env), startApiProcess(env)]);
    for (const api of [a, b]) await waitFor(() => api.call('GET', '/readyz').then((r) => r.status === 200), { what: 'an API ready' });
  });
  after(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    await redis?.stop();
  });

  const headers = () => ({ 'x-link-secret': env.LINK_SECRET });
  const grant = (api: ApiUnderTest, body: Record<string, unknown>) => api.call('POST', '/v1/link/credits', { body, headers: headers() });

  /** The account and every entry, read page by page through `api`. */
  async function statement(api: ApiUnderTest, subject: string): Promise<{ balance: number; held: number; entries: CreditEntry[] }> {
    const entries: CreditEntry[] = [];
    let cursor: string | null = null;
    let account = { balance: 0, held: 0 };
    do {
      const query: string = `subject=${encodeURIComponent(subject)}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await api.call('GET', `/v1/link/credits?${query}`, { headers: headers() });
      expect(res.status, res.text).to.equal(200);
      account = { balance: res.body.balance, held: res.body.held };
      entries.push(...res.body.entries);
      cursor = res.body.next_cursor;
    } while (cursor);
    return { ...account, entries };
  }

  it('200 concurrent distinct grants split across both add exactly their sum, and the entries add up to it on both', async () => {
    const subject = newSubject();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        grant(i % 2 ? a : b, { subject, credits: i + 1, grant_id: `cs_multi_${randomBytes(6).toString('hex')}_${i}` }),
      ),
    );
    expect(answers.map((r) => r.status)).to.deep.equal(Array(200).fill(201));
    const sum = (200 * 201) / 2;
    for (const api of [a, b]) {
      const seen = await statement(api, subject);
      expect({ balance: seen.balance, held: seen.held }).to.deep.equal({ balance: sum, held: 0 });
      expect(seen.entries).to.have.length(200);
      expect(new Set(seen.entries.map((entry) => entry.id)).size).to.equal(200);
      expect(accountOfEntries(seen.entries)).to.deep.equal({ balance: sum, held: 0 });
    }
  });

  it('200 concurrent repeats of one grant split across both add it once: one 201, 199 replays of the same grant', async () => {
    const subject = newSubject();
    await grant(a, { subject, credits: 3, grant_id: `cs_before_${randomBytes(6).toString('hex')}` });
    const body = { subject, credits: 50, grant_id: `cs_once_${randomBytes(6).toString('hex')}`, note: 'one checkout' };
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => grant(i % 2 ? a : b, body)));
    expect(answers.filter((r) => r.status === 201)).to.have.length(1);
    const replays = answers.filter((r) => r.status === 200);
    expect(replays).to.have.length(199);
    expect(replays.every((r) => r.headers.get('idempotent-replayed') === 'true')).to.equal(true);
    expect(new Set(answers.map((r) => r.body.grant.id)).size, 'one grant').to.equal(1);
    for (const api of [a, b]) {
      const seen = await statement(api, subject);
      expect({ balance: seen.balance, held: seen.held }).to.deep.equal({ balance: 53, held: 0 });
      expect(accountOfEntries(seen.entries)).to.deep.equal({ balance: 53, held: 0 });
      expect(seen.entries.map((entry) => entry.credits)).to.deep.equal([50, 3]);
    }
  });
});
