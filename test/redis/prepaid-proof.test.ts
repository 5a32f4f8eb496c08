import { startRedisPair } from '../support/harness';
import { prepaidProof } from '../support/money-proofs';

// The same proof runs on the 3-primary Redis Cluster in test/topologies/cluster-money.test.ts.
prepaidProof('one node', (env) => startRedisPair(env));
