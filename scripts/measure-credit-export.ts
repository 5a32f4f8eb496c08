/**
 * Measures the heap the credit export uses over a large ledger: fills a private redis-server with `ENTRIES`
 * entries across 10 accounts (written directly, as the scripts write them), then runs the export through the
 * Redis credit store and reports the peak live heap growth (sampled after a collection every 10,000 lines) against the size of the entries.
 * `node --expose-gc --import tsx scripts/measure-credit-export.ts [entries]`.
 */

import { RedisCreditStore } from '../shared/adapters/redis/redis-credit-store';
import { CreditLedgerReader } from '../shared/domain/credits/credit-ledger-reader';
import { connectStoreClient } from '../test/support/redis-fixture';
import { startRedis } from '../test/testkit/redis-node';

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 100_000);
  const redis = await startRedis();
  const store = await connectStoreClient(redis.url, 'measure:');
  try {
    let bytes = 0;
    for (let account = 0; account < 10; account++) {
      const subject = `measure-${account}@example.com`;
      await store.client.zadd(store.keys.creditAccounts, 0, subject);
      const key = store.keys.subjectCreditEntries(subject);
      for (let start = 0; start < total / 10; start += 1000) {
        const batch = store.client.pipeline();
        for (let i = start; i < start + 1000; i++) {
          const entry = JSON.stringify({
            id: `cre_${account}_${i}`,
            kind: 'grant',
            credits: 1,
            at: new Date().toISOString(),
            grant_id: `g_${account}_${i}`,
            balance_after: i + 1,
            held_after: 0,
          });
          bytes += entry.length;
          batch.zadd(key, i + 1, entry);
        }
        await batch.exec();
      }
    }
    global.gc?.();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    let lines = 0;
    const reader = new CreditLedgerReader(new RedisCreditStore(store.client, store.keys, store.guard));
    for await (const line of reader.export({})) {
      lines += 1;
      JSON.stringify({ ...line.entry, cursor: line.cursor });
      // Live heap, after a collection: what the export keeps, not the garbage it has not collected yet.
      if (lines % 10_000 === 0) {
        global.gc?.();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
    }
    const mb = (n: number) => (n / 1_048_576).toFixed(1);
    console.log(
      `${lines} lines exported; entries ${mb(bytes)} MiB as JSON; peak live heap growth (sampled after a collection every 10,000 lines) ${mb(peak - base)} MiB`,
    );
  } finally {
    await store.close();
    await redis.stop();
  }
}

void main();
