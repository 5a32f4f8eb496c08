import { BACKENDS } from '../support/backends';
import { cancelRaceProof, twoApiCancelProof } from '../support/cancel-race-flows';
import { startConnector, startRedisPair } from '../support/harness';

// The same proofs run on the 3-primary Redis Cluster in test/topologies/cluster-cancels.test.ts; the prepaid
// variant of the two-API proof in test/redis/prepaid-cancel-races.test.ts.
for (const backend of BACKENDS) cancelRaceProof(backend, (env, options) => startConnector(backend, env, options));

twoApiCancelProof('redis', startRedisPair);
