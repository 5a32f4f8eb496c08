import { parseArgs } from 'node:util';
import { closeRedisClient, createRedisClient } from '../shared/adapters/redis/redis-client';
import { RedisGuard } from '../shared/adapters/redis/redis-guard';
import { RedisKeys } from '../shared/adapters/redis/redis-keys';
import { RedisOAuthStateStore } from '../shared/adapters/redis/redis-oauth-state-store';
import { newConfidentialClient, storeConfidentialClient } from '../shared/domain/oauth/confidential-client';
import { loadRedisSettings } from '../shared/platform/config/redis-settings';
import { createLogger } from '../shared/platform/logging/logger';
import { Metrics } from '../shared/platform/metrics/metrics';

// `npm run oauth:client -- --name "My GPT" --redirect-uri https://chat.openai.com/aip/g-…/oauth/callback`
// from a checkout (the image does not ship it). Prints a confidential client's id and secret once.
// With Redis configured (REDIS_URL, or the Sentinel or Cluster variables, as the API reads them) the client is
// stored in Redis, hashed; without it, the entry to put in OAUTH_CLIENTS is printed instead.

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true } } });
  const { record, secret } = newConfidentialClient(values.name ?? '', values['redirect-uri'] ?? []);
  const problems: Array<{ name: string; reason: string }> = [];
  const { connection } = loadRedisSettings(process.env, problems);
  if (problems.length > 0) throw new Error(`invalid configuration: ${problems.map((p) => `${p.name} ${p.reason}`).join('; ')}`);
  if (connection) {
    const logger = createLogger('warn', 'oauth-client');
    const client = createRedisClient({
      connection,
      role: 'worker',
      connectionName: 'oauth-client',
      commandTimeoutMs: 5000,
      logger,
      metrics: new Metrics(),
    });
    try {
      const keys = RedisKeys.forConnection(process.env.REDIS_KEY_PREFIX ?? 'connector:', connection);
      const store = new RedisOAuthStateStore(client, keys, new RedisGuard(10_000));
      await storeConfidentialClient(store, record);
    } finally {
      await closeRedisClient(client);
    }
    process.stdout.write('Stored in Redis (only a hash of the secret).\n');
  } else {
    process.stdout.write(
      `No Redis configured: add this entry to the JSON array in OAUTH_CLIENTS (it holds only a hash of the secret):\n${JSON.stringify(record)}\n`,
    );
  }
  process.stdout.write(`client_id=${record.client_id}\nclient_secret=${secret}\nThe secret is shown only now; it cannot be recovered.\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : 'failed'}\n`);
  process.exit(1);
});
